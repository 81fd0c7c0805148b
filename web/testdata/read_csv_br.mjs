// Reads a CSV as a spreadsheet set to Portuguese (Brazil) does, with
// exceljs's CSV reader (not the writer that made it): ';' between fields,
// a decimal comma in amounts ("1234,56" is 1234.56), and prints its rows
// as JSON: numbers as numbers, every other cell as its text.
import ExcelJS from 'exceljs';

const decimalComma = /^-?\d+,\d+$/;
const integer = /^-?\d+$/;
const wb = new ExcelJS.Workbook();
const ws = await wb.csv.readFile(process.argv[2], {
  parserOptions: { delimiter: ';' },
  map(value) {
    if (decimalComma.test(value)) return Number(value.replace(',', '.'));
    if (integer.test(value)) return Number(value);
    return value;
  },
});
const rows = [];
ws.eachRow({ includeEmpty: true }, (row) => {
  const values = [];
  for (let c = 1; c <= ws.columnCount; c++) {
    const v = row.getCell(c).value;
    values.push(v === undefined || v === null ? '' : v);
  }
  rows.push(values);
});
process.stdout.write(JSON.stringify(rows));
