// Verifies a delivery with the official Standard Webhooks package:
//   node verify_standard.js <secret> <raw|base64> <headers JSON>  < body
// prints "valid" or "invalid".
const path = require("path");
const { Webhook } = require(path.join(__dirname, "../../../node_modules/standardwebhooks"));

const [secret, format, headersJSON] = process.argv.slice(2);
let body = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (c) => (body += c));
process.stdin.on("end", () => {
  try {
    const wh = format === "raw" ? new Webhook(new TextEncoder().encode(secret), { format: "raw" }) : new Webhook(secret);
    wh.verify(body, JSON.parse(headersJSON));
    console.log("valid");
  } catch (e) {
    console.log("invalid");
  }
});
