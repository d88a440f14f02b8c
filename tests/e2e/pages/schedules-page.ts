import { expect, type Page } from "@playwright/test";

/** /schedules: the member's schedules and the form to add one. */
export class SchedulesPage {
  constructor(private readonly page: Page) {}

  async goto() {
    await this.page.goto("/schedules");
    await expect(this.page.getByRole("heading", { name: "Schedules", level: 1 })).toBeVisible();
  }

  form() {
    return this.page.getByRole("form", { name: "New schedule" });
  }

  /** Creates a schedule on the form's defaults (weekdays at 09:00, the browser's time zone). */
  async create(instructions: string, name: string) {
    const form = this.form();
    await form.getByLabel("Name").fill(name);
    await form.getByLabel("Instructions").fill(instructions);
    await form.getByRole("button", { name: "Create schedule" }).click();
  }

  schedule(name: string) {
    return this.page.getByTestId("schedule").filter({ has: this.page.getByText(name, { exact: true }) });
  }

  async act(name: string, action: "Run now" | "Pause" | "Resume" | "Delete") {
    await this.schedule(name).getByRole("button", { name: action }).click();
  }
}
