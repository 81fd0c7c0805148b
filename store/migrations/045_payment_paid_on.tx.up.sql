-- The day (in Brasília) whose amount due a due-date charge was paid with:
-- its discount, abatement, fine and interest are its terms on that day
-- (pix/cobv), so a payment's page can show every part of what was paid.
-- NULL for other charges and for charges paid before this column.
ALTER TABLE payments ADD COLUMN paid_on date;
