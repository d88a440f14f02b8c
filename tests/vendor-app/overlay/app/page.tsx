import { Suspense } from "react";
import { connection } from "next/server";
import { currentShopper } from "./session";
import { ShopChat } from "./shop-chat";

async function Shop() {
  // Read at request time: who is signed in, and where Inlay is (the shop's own environment).
  await connection();
  const shopper = await currentShopper();
  if (!shopper) {
    return (
      <form method="post" action="/api/sign-in">
        <label>
          Email <input name="email" type="email" required />
        </label>
        <button type="submit">Sign in to the shop</button>
      </form>
    );
  }
  return (
    <>
      <p>Signed in as {shopper.email}</p>
      <ShopChat inlayUrl={process.env.INLAY_URL!} agent={process.env.INLAY_AGENT!} />
    </>
  );
}

export default function Home() {
  return (
    <main style={{ maxWidth: 760, margin: "0 auto", padding: 24, fontFamily: "system-ui" }}>
      <h1>Acme Shop</h1>
      <Suspense fallback={<p>Loading…</p>}>
        <Shop />
      </Suspense>
    </main>
  );
}
