-- Dated API versions (issue 51): each account is pinned to the version
-- that was current when it was made, and each webhook endpoint renders its
-- events in its own. Rows made before versions existed were being served
-- the newest shapes, so they are pinned to the newest version of the day;
-- the service names the version of every row it makes from now on.
ALTER TABLE accounts ADD COLUMN payments_version text NOT NULL DEFAULT '2026-11-28';
ALTER TABLE webhooks ADD COLUMN payments_version text NOT NULL DEFAULT '2026-11-28';
