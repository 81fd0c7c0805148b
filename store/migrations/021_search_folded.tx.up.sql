-- Search that reads as people write: "Joao" finds "João", "CAFÉ" finds
-- "café". search_fold is lower case without accents, immutable so that
-- indexes can hold it (unaccent itself is only stable: its dictionary
-- could change; this one names it, and a change of it means a reindex).
-- unaccent and pg_trgm are trusted extensions: a database owner may create
-- them. The indexes keep a merchant's search (customer name start,
-- description words) and support's (refund and transfer ids) fast at
-- millions of payments (BENCHMARKS.md, "Search at scale").
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE FUNCTION search_fold(text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    RETURN lower(unaccent('unaccent'::regdictionary, $1));

CREATE INDEX payments_customer_name_fold_idx ON payments (search_fold(customer ->> 'name') text_pattern_ops)
    WHERE customer IS NOT NULL;
CREATE INDEX payments_description_fold_idx ON payments USING gin (search_fold(description) gin_trgm_ops)
    WHERE description IS NOT NULL;
DROP INDEX payments_customer_name_idx;

CREATE INDEX refunds_end_to_end_id_idx ON refunds (end_to_end_id) WHERE end_to_end_id IS NOT NULL;
CREATE INDEX refunds_return_id_idx ON refunds (return_id) WHERE return_id IS NOT NULL;
