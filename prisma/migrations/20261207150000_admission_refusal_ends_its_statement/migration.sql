-- A member's admission is one statement (server/framework/tenancy/limits-repository.ts, takeAdmission):
-- each counter is taken only when the one before it was. When a later counter refuses, the statement
-- ends with this error, so the counters it had taken roll back with it and no transaction has to be
-- held open around it. The message names the step that refused.
CREATE FUNCTION framework_refuse_admission(step text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admission refused at %', step USING ERRCODE = 'P0001';
END
$$;
