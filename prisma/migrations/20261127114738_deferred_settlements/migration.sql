-- CreateTable
CREATE TABLE "platform_pending_settlements" (
    "id" BIGSERIAL NOT NULL,
    "account_id" INTEGER NOT NULL,
    "run_id" INTEGER NOT NULL,
    "charge_micros" BIGINT NOT NULL,
    "release_micros" BIGINT NOT NULL,
    "description" TEXT NOT NULL,

    CONSTRAINT "platform_pending_settlements_pkey" PRIMARY KEY ("id")
);

-- Applies a pending settlement as its transaction commits: the account's balance and holds move by
-- it (relatively) and the ledger gets the debit with the balance that results. Deferred to the
-- commit, the account's row (which every run admission and settlement of the account updates) is
-- locked from here to the end of the commit, inside the database, and never while the transaction
-- waits for its client's next statement.
CREATE FUNCTION platform_apply_pending_settlement() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  after_balance BIGINT;
BEGIN
  UPDATE platform_accounts
  SET balance_micros = balance_micros - NEW.charge_micros,
      held_micros = held_micros - NEW.charge_micros - NEW.release_micros,
      updated_at = now()
  WHERE id = NEW.account_id
  RETURNING balance_micros INTO after_balance;
  IF NEW.charge_micros > 0 AND after_balance IS NOT NULL THEN
    INSERT INTO platform_balance_transactions (account_id, type, amount_micros, balance_after_micros, run_id, description, created_at)
    VALUES (NEW.account_id, 'debit', -NEW.charge_micros, after_balance, NEW.run_id, NEW.description, now());
  END IF;
  DELETE FROM platform_pending_settlements WHERE id = NEW.id;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER platform_pending_settlements_apply AFTER INSERT ON "platform_pending_settlements"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION platform_apply_pending_settlement();
