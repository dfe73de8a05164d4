ALTER TABLE "tasks" ADD COLUMN "owner_grant_id" text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX "tasks_owner_user_idx" ON "tasks" USING btree ("owner_user_id","status");--> statement-breakpoint
CREATE INDEX "tasks_owner_workspace_idx" ON "tasks" USING btree ("owner_workspace_id","status");