CREATE TABLE `item_creators` (
	`workspace_id` text NOT NULL,
	`kind` text NOT NULL,
	`item_id` text NOT NULL,
	`user_id` text NOT NULL,
	`upstream_user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `kind`, `item_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `write_reservations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`tool` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `write_reservations_member_idx` ON `write_reservations` (`user_id`,`workspace_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `workspace_members` ADD `can_change_webhook` integer;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `members_read_team_work` integer DEFAULT true NOT NULL;