// Turns a failed validation (zod, in the browser) or a refused tRPC call into per-field messages and
// one form-level message, so forms show each error next to its field.
import { z, type ZodType } from "zod";

export interface FormErrors {
  fields: Record<string, string>;
  form?: string;
}

export const noErrors: FormErrors = { fields: {} };

/** Validates in the browser with the same contract the procedure uses. */
export function validate<T>(schema: ZodType<T>, value: unknown): { data: T; errors?: undefined } | { data?: undefined; errors: FormErrors } {
  const result = schema.safeParse(value);
  if (result.success) return { data: result.data };
  const flat = z.flattenError(result.error);
  const fields: Record<string, string> = {};
  for (const [key, messages] of Object.entries(flat.fieldErrors as Record<string, string[] | undefined>)) {
    if (messages?.[0]) fields[key] = messages[0];
  }
  return { errors: { fields, form: flat.formErrors[0] } };
}

interface TrpcErrorLike {
  message: string;
  data?: { zodError?: { fieldErrors?: Record<string, string[] | undefined>; formErrors?: string[] } | null; field?: string | null } | null;
}

/** A tRPC client error as form errors: zod issues per field, a domain error on its field if it names one. */
export function fromTrpcError(error: unknown): FormErrors {
  const { message, data } = (error ?? {}) as TrpcErrorLike;
  const fields: Record<string, string> = {};
  for (const [key, messages] of Object.entries(data?.zodError?.fieldErrors ?? {})) {
    if (messages?.[0]) fields[key] = messages[0];
  }
  if (data?.field) {
    fields[data.field] = message;
    return { fields };
  }
  if (Object.keys(fields).length > 0) return { fields };
  return { fields, form: message || "Something went wrong. Try again." };
}
