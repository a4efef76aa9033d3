-- An attempt in flight holds its delivery's lease (issue 23): every dispatcher counts the leases, so
-- the caps on attempts in flight (10 per endpoint, 50 per user) hold across replicas. The lease ends
-- when the attempt is recorded, or runs out after a crash (the delivery is then due again).
alter table deliveries add column leased_until timestamptz;
create index deliveries_leased_idx on deliveries (endpoint_id) where leased_until is not null;
