// Schedules end to end: a member schedules their copy of the workspace agent in their browser's time
// zone, runs it now and sees the run finish in the list, pauses and resumes it; the admin sets the
// workspace's cap on active schedules and sees the member's schedule (read-only); the member deletes it.
import { expect, test } from "@playwright/test";
import { CapsPage } from "./pages/admin-pages";
import { SchedulesPage } from "./pages/schedules-page";
import { signedIn } from "./pages/sign-in-page";

test("a member schedules their agent, runs it now and sees the run; the admin sees the schedule", async ({ browser }) => {
  test.setTimeout(90_000);
  const name = `Digest ${Date.now().toString(36)}`;

  // The agents-and-quota spec caps member@acme.test at two runs: back to the workspace default, and a
  // cap of 5 active schedules for the workspace.
  const admin = await signedIn(browser, "admin@acme.test");
  const caps = new CapsPage(admin);
  await caps.goto();
  // The members' list loads after the page: count its button only once the member's form is there.
  await expect(caps.memberForm("member@acme.test")).toBeVisible();
  const useDefault = caps.memberForm("member@acme.test").getByRole("button", { name: "Use default" });
  if (await useDefault.count()) {
    await useDefault.click();
    await expect(caps.memberRow("member@acme.test").getByTestId("effective-cap")).toContainText("default");
  }
  const scheduleCap = admin.getByRole("form", { name: "Active schedules cap" });
  await scheduleCap.getByLabel("Active schedules (whole workspace)").fill("5");
  await scheduleCap.getByRole("button", { name: "Save" }).click();
  await expect(scheduleCap.getByRole("status")).toHaveText("Saved.");

  const member = await signedIn(browser, "member@acme.test");
  const schedules = new SchedulesPage(member);
  await member.getByRole("link", { name: "Schedules" }).click();
  await expect(member.getByRole("heading", { name: "Schedules", level: 1 })).toBeVisible();
  const browserZone = await member.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  await expect(schedules.form().getByLabel("Time zone")).toHaveValue(browserZone);

  await schedules.create("Write the morning digest.", name);
  const row = schedules.schedule(name);
  await expect(row).toContainText(`Acme assistant · Every weekday at 09:00 (${browserZone})`);
  await expect(row.getByTestId("schedule-state")).toContainText("Next: ");

  await schedules.act(name, "Run now");
  await expect(row.getByTestId("schedule-run")).toHaveCount(1);
  await expect(row.getByTestId("schedule-run-status")).toHaveText("completed", { timeout: 20_000 });
  await member.screenshot({ path: "test-results/schedules-member.png", fullPage: true });

  await schedules.act(name, "Pause");
  await expect(row.getByTestId("schedule-state")).toHaveText("Paused");
  await schedules.act(name, "Resume");
  await expect(row.getByTestId("schedule-state")).toContainText("Next: ");

  await admin.goto("/admin/schedules");
  const adminRow = admin.getByTestId("tenant-schedule").filter({ hasText: name });
  await expect(adminRow).toContainText("Max Member");
  await expect(adminRow).toContainText("Every weekday at 09:00");
  await admin.screenshot({ path: "test-results/schedules-admin.png", fullPage: true });

  await schedules.act(name, "Delete");
  await expect(row).toHaveCount(0);
});
