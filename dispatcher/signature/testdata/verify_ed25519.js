// Verify an ed25519-signed delivery in Node with the standard crypto module only.
// Usage here: node verify_ed25519.js <whpk_ public key> <webhook-id> <webhook-timestamp> <webhook-signature> < body
const crypto = require("crypto");

function verifyEd25519(rawBody, headers, publicKey, toleranceSeconds = 300) {
  const id = headers["webhook-id"], ts = headers["webhook-timestamp"], sigs = headers["webhook-signature"];
  if (!id || !ts || !sigs || Math.abs(Date.now() / 1000 - Number(ts)) > toleranceSeconds) return false;
  const raw = Buffer.from(publicKey.replace(/^whpk_/, ""), "base64");
  const key = crypto.createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") }, format: "jwk" });
  const signed = Buffer.concat([Buffer.from(`${id}.${ts}.`), rawBody]);
  return sigs.split(" ").some((entry) => {
    const [version, sig] = entry.split(",");
    return version === "v1a" && crypto.verify(null, signed, key, Buffer.from(sig, "base64"));
  });
}

const [publicKey, id, ts, sigs] = process.argv.slice(2);
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const headers = { "webhook-id": id, "webhook-timestamp": ts, "webhook-signature": sigs };
  const ok = verifyEd25519(Buffer.concat(chunks), headers, publicKey);
  console.log(ok ? "valid" : "invalid");
  process.exit(ok ? 0 : 1);
});
