// What Inlay adds to next-auth's session and token.
import "next-auth";
import "next-auth/jwt";

declare module "next-auth" {
  interface User {
    isOwner: boolean;
  }
  interface Session {
    user: {
      id: string;
      email?: string | null;
      name?: string | null;
      image?: string | null;
      isOwner: boolean;
    };
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    uid?: string;
    isOwner?: boolean;
  }
}
