-- A delivery whose endpoint was deleted or disabled will never be attempted: it is `cancelled`,
-- so the dispatcher's queue holds only work it will do.
alter table deliveries drop constraint deliveries_status_check;
alter table deliveries add constraint deliveries_status_check
  check (status in ('pending', 'succeeded', 'failed', 'cancelled'));

update deliveries d set status = 'cancelled', next_attempt_at = null, updated_at = now()
from endpoints e
where e.id = d.endpoint_id and d.status = 'pending' and (not e.enabled or e.deleted_at is not null);

-- the fair-share due query: per endpoint, its oldest due deliveries
create index deliveries_endpoint_due_idx on deliveries (endpoint_id, next_attempt_at, id) where status = 'pending';
-- and the endpoints that may receive anything
create index endpoints_live_idx on endpoints (id) where enabled and deleted_at is null;
