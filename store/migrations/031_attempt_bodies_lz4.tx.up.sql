-- An attempt keeps at most 16 KiB of each body (the dispatcher cuts them;
-- "(body truncated)" among its headers says so): a row stays inline and
-- uncompressed up to about 8 kB (migration 017), and one past that is now
-- compressed with lz4, cheaper than the default pglz. Only values written
-- from now on; new partitions take the parent's setting, the ones there
-- already are set one by one.
ALTER TABLE delivery_attempts ALTER COLUMN request_body SET COMPRESSION lz4,
    ALTER COLUMN response_body SET COMPRESSION lz4;
DO $$
DECLARE
    part record;
BEGIN
    FOR part IN SELECT inhrelid::regclass AS name FROM pg_inherits WHERE inhparent = 'delivery_attempts'::regclass LOOP
        EXECUTE format('ALTER TABLE %s ALTER COLUMN request_body SET COMPRESSION lz4, ALTER COLUMN response_body SET COMPRESSION lz4', part.name);
    END LOOP;
END $$;
