-- The outbox's insert is conditional (a run's event is written only when a webhook is in its scope),
-- and a statement trigger fires even when it inserted nothing: every run's start and end woke every
-- worker's webhook dispatcher for an empty read. Only a statement that inserted rows wakes it now.
CREATE OR REPLACE FUNCTION platform_webhook_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted) THEN
    PERFORM pg_notify('inlay_signals', E'database\nwebhook-events\t');
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER platform_webhook_events_notify ON "platform_webhook_events";
CREATE TRIGGER platform_webhook_events_notify AFTER INSERT ON "platform_webhook_events"
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION platform_webhook_events_notify();
