// Reads an OFX statement with ofx-js (not the library that wrote it) and
// prints its transactions and closing balance as JSON.
import { readFileSync } from 'node:fs';
import { parse } from 'ofx-js';

const data = await parse(readFileSync(process.argv[2], 'utf8'));
const rs = data.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
let trns = rs.BANKTRANLIST.STMTTRN || [];
if (!Array.isArray(trns)) trns = [trns];
process.stdout.write(JSON.stringify({
  currency: rs.CURDEF,
  account: rs.BANKACCTFROM.ACCTID,
  ledger: rs.LEDGERBAL.BALAMT,
  available: rs.AVAILBAL ? rs.AVAILBAL.BALAMT : null,
  start: rs.BANKTRANLIST.DTSTART,
  end: rs.BANKTRANLIST.DTEND,
  transactions: trns.map(t => ({ type: t.TRNTYPE, posted: t.DTPOSTED, amount: t.TRNAMT, fitid: t.FITID, name: t.NAME, memo: t.MEMO, refnum: t.REFNUM })),
}));
