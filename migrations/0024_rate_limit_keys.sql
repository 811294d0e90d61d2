-- A rate-limit key holds an end user's X-User-Id (up to 256 characters, spec §8) beside the tenant
-- and sub-tenant ids: varchar(255) refused the longest ones (500 on PostgreSQL only).
ALTER TABLE rate_limits ALTER COLUMN key TYPE text;
