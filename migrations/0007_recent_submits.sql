CREATE TABLE `recent_submits` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`job_id` text,
	`holder` text,
	`created_at` integer NOT NULL,
	`seen_running_at` integer NOT NULL,
	`finished_at` integer,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `recent_submits_job_idx` ON `recent_submits` (`kind`,`job_id`);--> statement-breakpoint
CREATE INDEX `recent_submits_expires_idx` ON `recent_submits` (`expires_at`);