-- An outbox row no active webhook subscribes to is written already dispatched (it is kept for replays
-- after a webhook's kinds change, and has no delivery to make): such an insert, every run's
-- run.started where only run-ending kinds are watched, woke every dispatcher for a pass that made
-- no delivery. Only a statement that inserted a row still to dispatch wakes them now.
CREATE OR REPLACE FUNCTION platform_webhook_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM inserted WHERE dispatched_at IS NULL) THEN
    PERFORM pg_notify('inlay_signals', E'database\nwebhook-events\t');
  END IF;
  RETURN NULL;
END
$$;
