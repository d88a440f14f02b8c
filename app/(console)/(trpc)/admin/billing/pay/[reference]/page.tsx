import type { Metadata } from "next";
import { AdminPage, Refused } from "@/components/admin/admin-page";
import { ManualPayment } from "@/components/admin/billing-panel";
import { getViewer } from "../../../../../viewer";

export const metadata: Metadata = { title: "Pay a top-up" };

/** `?amount=` is the top-up's amount in cents, as the Top up form sent it (display only). */
export default async function ManualPaymentPage({
  params,
  searchParams,
}: {
  params: Promise<{ reference: string }>;
  searchParams: Promise<{ amount?: string | string[] }>;
}) {
  const [{ reference }, { amount }] = await Promise.all([params, searchParams]);
  const { isOwner } = await getViewer(`/admin/billing/pay/${encodeURIComponent(reference)}`);
  const cents = typeof amount === "string" && /^\d{1,12}$/.test(amount) ? Number(amount) : null;
  return (
    <AdminPage title="Pay a top-up" intro="This installation takes no card payments: here is how the balance gets this top-up.">
      {isOwner ? <ManualPayment reference={reference} amountCents={cents} /> : <Refused message="Only the installation owner can see this page." />}
    </AdminPage>
  );
}
