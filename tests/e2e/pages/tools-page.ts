import { expect, type Page } from "@playwright/test";

/** /admin/tools: a tenant admin's tool servers and skills. */
export class AdminToolsPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/admin/tools");
    await expect(this.page.getByRole("heading", { name: "Tools and skills", level: 1 })).toBeVisible();
  }

  async addMcpServer(name: string, url: string) {
    const form = this.page.getByRole("form", { name: "Add a tool server" });
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("URL").fill(url);
    await form.getByRole("button", { name: "Add tool server" }).click();
  }

  server(name: string) {
    return this.page.getByTestId("tool-server").filter({ hasText: name });
  }

  async addSkill(name: string, description: string, playbook: string) {
    const form = this.page.getByRole("form", { name: "Add a skill" });
    await form.getByLabel("Skill name").fill(name);
    await form.getByLabel("What it does").fill(description);
    await form.getByLabel("Playbook").fill(playbook);
    await form.getByRole("button", { name: "Add skill" }).click();
  }

  skill(slug: string) {
    return this.page.getByTestId("skill").filter({ hasText: `/${slug}` });
  }
}
