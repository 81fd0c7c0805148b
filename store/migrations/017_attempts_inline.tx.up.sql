-- An attempt row (its signed request's body and headers, the answer's
-- first bytes) is a little over 2 kB with the Standard Webhooks headers:
-- past the default TOAST threshold, PostgreSQL tried to compress every one
-- as it was written. Rows up to a page stay inline, uncompressed.
ALTER TABLE delivery_attempts SET (toast_tuple_target = 8160);
