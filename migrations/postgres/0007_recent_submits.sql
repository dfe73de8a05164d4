CREATE TABLE "recent_submits" (
	"key_hash" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"job_id" text,
	"holder" text,
	"created_at" bigint NOT NULL,
	"seen_running_at" bigint NOT NULL,
	"finished_at" bigint,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "recent_submits_job_idx" ON "recent_submits" USING btree ("kind","job_id");--> statement-breakpoint
CREATE INDEX "recent_submits_expires_idx" ON "recent_submits" USING btree ("expires_at");