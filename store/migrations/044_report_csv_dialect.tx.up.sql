-- A CSV report's dialect: rfc4180 (commas, decimal points, ISO 8601; the
-- API's default and every CSV made before) or excel_br (a UTF-8 BOM,
-- semicolons, decimal commas, dd/mm/aaaa and Portuguese headers: what
-- Excel in pt-BR opens as columns). NULL for the other formats.
ALTER TABLE reports ADD COLUMN csv_dialect text
    CHECK (csv_dialect IN ('rfc4180', 'excel_br'));
UPDATE reports SET csv_dialect = 'rfc4180' WHERE format = 'csv';
ALTER TABLE reports ADD CONSTRAINT reports_csv_dialect_of_csv CHECK ((format = 'csv') = (csv_dialect IS NOT NULL));
