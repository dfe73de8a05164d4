CREATE TABLE `rate_limit_hits` (
	`key` text NOT NULL,
	`window_start` integer NOT NULL,
	`hits` integer NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`key`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `rate_limit_hits_expires_idx` ON `rate_limit_hits` (`expires_at`);--> statement-breakpoint
CREATE TABLE `waiting_calls` (
	`id` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`grant_id` text NOT NULL,
	`request_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `waiting_calls_request_idx` ON `waiting_calls` (`grant_id`,`request_key`);--> statement-breakpoint
CREATE INDEX `waiting_calls_expires_idx` ON `waiting_calls` (`expires_at`);