import { currentShopper } from "./session";
import { ShopChat } from "./shop-chat";

export const dynamic = "force-dynamic";

export default async function Home() {
  const shopper = await currentShopper();
  return (
    <main style={{ maxWidth: 760, margin: "0 auto", padding: 24, fontFamily: "system-ui" }}>
      <h1>Acme Shop</h1>
      {shopper ? (
        <>
          <p>Signed in as {shopper.email}</p>
          <ShopChat inlayUrl={process.env.INLAY_URL!} agent={process.env.INLAY_AGENT!} />
        </>
      ) : (
        <form method="post" action="/api/sign-in">
          <label>
            Email <input name="email" type="email" required />
          </label>
          <button type="submit">Sign in to the shop</button>
        </form>
      )}
    </main>
  );
}
