import { Suspense } from "react";
import { connection } from "next/server";
import { redirect } from "next/navigation";
import { currentShopper } from "../session";
import { SupportChat } from "./support-chat";

async function Support() {
  await connection();
  if (!(await currentShopper())) redirect("/");
  return <SupportChat inlayUrl={process.env.INLAY_URL!} agent={process.env.INLAY_AGENT!} />;
}

export default function SupportPage() {
  return (
    <main style={{ maxWidth: 760, margin: "0 auto", padding: 24, fontFamily: "system-ui" }}>
      <h1>Acme support</h1>
      <Suspense fallback={<p>Loading…</p>}>
        <Support />
      </Suspense>
    </main>
  );
}
