-- The Kubernetes operator links each Tenant and SubTenant custom resource (by its uid) to the record
-- it created, so a reconcile that stopped after the insert finds that record again instead of
-- creating a second one.
ALTER TABLE tenants ADD COLUMN operator_ref text UNIQUE;
ALTER TABLE sub_tenants ADD COLUMN operator_ref text;
CREATE UNIQUE INDEX sub_tenants_operator_ref ON sub_tenants (tenant_id, operator_ref) WHERE operator_ref IS NOT NULL;
