-- Why a key was revoked when no one revoked it by hand: "maker_removed",
-- its maker left the account's team (a key is never stronger than its
-- maker, and a maker who is gone has no strength). NULL: revoked by hand.
ALTER TABLE api_keys ADD COLUMN revoked_reason text;
