// Reads a spreadsheet with exceljs (not the library that wrote it) and
// prints its first sheet as JSON: the sheet's name, each cell's number
// format by column (from the first data row), and every row's values
// (dates as ISO strings of their wall clock).
import ExcelJS from 'exceljs';

const wb = new ExcelJS.Workbook();
await wb.xlsx.readFile(process.argv[2]);
const ws = wb.worksheets[0];
const rows = [];
const formats = [];
ws.eachRow({ includeEmpty: false }, (row, n) => {
  const values = [];
  for (let c = 1; c <= ws.columnCount; c++) {
    const cell = row.getCell(c);
    let v = cell.value;
    if (v instanceof Date) v = { date: v.toISOString() };
    values.push(v === undefined ? null : v);
    if (n === 2) formats.push(cell.numFmt || null);
  }
  rows.push(values);
});
process.stdout.write(JSON.stringify({ sheet: ws.name, formats, rows }));
