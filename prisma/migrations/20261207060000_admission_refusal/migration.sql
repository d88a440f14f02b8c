-- An admission is one statement without a transaction (server/framework/tenancy/limits-repository.ts
-- takeAdmission): when a later limit refuses, this error aborts the statement, so the counters the
-- steps before it took are rolled back with it. The step that refused is the message's last word.
CREATE OR REPLACE FUNCTION framework_refuse_admission(step text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admission refused at %', step USING ERRCODE = 'P0001';
END
$$;
