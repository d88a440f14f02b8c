// Limit fields: an empty box means "no limit" (null); anything else must parse as a number, which the
// shared zod contract then checks (whole, 0 or more, within range).
export const readLimit = (form: FormData, name: string): number | null => {
  const raw = String(form.get(name) ?? "").trim();
  return raw === "" ? null : Number(raw);
};

export const showLimit = (value: number | null) => (value === null ? "" : String(value));
export const describeLimit = (value: number | null) => (value === null ? "no limit" : value.toLocaleString("en"));
