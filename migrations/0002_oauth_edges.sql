CREATE TABLE `oauth_decisions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`answer_sealed` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `oauth_codes` ADD `redirect_uri_sent` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `oauth_codes` ADD `family_id` text;--> statement-breakpoint
UPDATE `oauth_codes` SET `family_id` = `grant_id`;--> statement-breakpoint
CREATE TABLE `__new_oauth_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`family_id` text NOT NULL,
	`kind` text NOT NULL,
	`scopes` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`rotated_at` integer,
	`grace_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`grant_id`) REFERENCES `oauth_grants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Until now a grant was one code exchange, so its tokens are one family named after it, and a refresh
-- token's scopes (null until now) were its grant's.
INSERT INTO `__new_oauth_tokens` (`token_hash`, `grant_id`, `family_id`, `kind`, `scopes`, `created_at`, `expires_at`, `rotated_at`, `revoked_at`)
	SELECT t.`token_hash`, t.`grant_id`, t.`grant_id`, t.`kind`, COALESCE(t.`scopes`, g.`scopes`), t.`created_at`, t.`expires_at`, t.`rotated_at`, t.`revoked_at`
	FROM `oauth_tokens` t JOIN `oauth_grants` g ON g.`id` = t.`grant_id`;--> statement-breakpoint
DROP TABLE `oauth_tokens`;--> statement-breakpoint
ALTER TABLE `__new_oauth_tokens` RENAME TO `oauth_tokens`;--> statement-breakpoint
CREATE INDEX `tokens_grant_idx` ON `oauth_tokens` (`grant_id`);--> statement-breakpoint
CREATE INDEX `tokens_family_idx` ON `oauth_tokens` (`family_id`);--> statement-breakpoint
CREATE INDEX `tokens_expires_idx` ON `oauth_tokens` (`expires_at`);--> statement-breakpoint
-- One live grant per (user, client, workspace) from now on. Live duplicates (one per past
-- authorization) are merged into the newest: it takes the union of their scopes (nothing that works
-- today stops working) and their tokens, which stay separate families; the others are marked merged.
CREATE TEMP TABLE `grant_merge` AS
	SELECT g.`id` AS `old_id`,
		(SELECT k.`id` FROM `oauth_grants` k
			WHERE k.`user_id` = g.`user_id` AND k.`client_id` = g.`client_id` AND k.`workspace_id` = g.`workspace_id`
				AND k.`revoked_at` IS NULL
			ORDER BY k.`created_at` DESC, k.`id` DESC LIMIT 1) AS `keeper_id`
	FROM `oauth_grants` g WHERE g.`revoked_at` IS NULL;--> statement-breakpoint
DELETE FROM `grant_merge` WHERE `old_id` = `keeper_id`;--> statement-breakpoint
UPDATE `oauth_grants` SET `scopes` = rtrim(
	CASE WHEN ' ' || `scopes` || ' ' LIKE '% searches:read %' OR EXISTS (SELECT 1 FROM `grant_merge` m JOIN `oauth_grants` d ON d.`id` = m.`old_id` WHERE m.`keeper_id` = `oauth_grants`.`id` AND ' ' || d.`scopes` || ' ' LIKE '% searches:read %') THEN 'searches:read ' ELSE '' END ||
	CASE WHEN ' ' || `scopes` || ' ' LIKE '% searches:write %' OR EXISTS (SELECT 1 FROM `grant_merge` m JOIN `oauth_grants` d ON d.`id` = m.`old_id` WHERE m.`keeper_id` = `oauth_grants`.`id` AND ' ' || d.`scopes` || ' ' LIKE '% searches:write %') THEN 'searches:write ' ELSE '' END ||
	CASE WHEN ' ' || `scopes` || ' ' LIKE '% agent:read %' OR EXISTS (SELECT 1 FROM `grant_merge` m JOIN `oauth_grants` d ON d.`id` = m.`old_id` WHERE m.`keeper_id` = `oauth_grants`.`id` AND ' ' || d.`scopes` || ' ' LIKE '% agent:read %') THEN 'agent:read ' ELSE '' END ||
	CASE WHEN ' ' || `scopes` || ' ' LIKE '% agent:write %' OR EXISTS (SELECT 1 FROM `grant_merge` m JOIN `oauth_grants` d ON d.`id` = m.`old_id` WHERE m.`keeper_id` = `oauth_grants`.`id` AND ' ' || d.`scopes` || ' ' LIKE '% agent:write %') THEN 'agent:write ' ELSE '' END ||
	CASE WHEN ' ' || `scopes` || ' ' LIKE '% account:read %' OR EXISTS (SELECT 1 FROM `grant_merge` m JOIN `oauth_grants` d ON d.`id` = m.`old_id` WHERE m.`keeper_id` = `oauth_grants`.`id` AND ' ' || d.`scopes` || ' ' LIKE '% account:read %') THEN 'account:read ' ELSE '' END ||
	CASE WHEN ' ' || `scopes` || ' ' LIKE '% account:write %' OR EXISTS (SELECT 1 FROM `grant_merge` m JOIN `oauth_grants` d ON d.`id` = m.`old_id` WHERE m.`keeper_id` = `oauth_grants`.`id` AND ' ' || d.`scopes` || ' ' LIKE '% account:write %') THEN 'account:write ' ELSE '' END
) WHERE `id` IN (SELECT `keeper_id` FROM `grant_merge`);--> statement-breakpoint
UPDATE `oauth_tokens` SET `grant_id` = (SELECT `keeper_id` FROM `grant_merge` WHERE `old_id` = `oauth_tokens`.`grant_id`)
	WHERE `grant_id` IN (SELECT `old_id` FROM `grant_merge`);--> statement-breakpoint
UPDATE `oauth_codes` SET `grant_id` = (SELECT `keeper_id` FROM `grant_merge` WHERE `old_id` = `oauth_codes`.`grant_id`)
	WHERE `grant_id` IN (SELECT `old_id` FROM `grant_merge`);--> statement-breakpoint
UPDATE `oauth_grants` SET `revoked_at` = CAST(strftime('%s', 'now') AS INTEGER) * 1000, `revoked_reason` = 'merged'
	WHERE `id` IN (SELECT `old_id` FROM `grant_merge`);--> statement-breakpoint
DROP TABLE `grant_merge`;--> statement-breakpoint
CREATE UNIQUE INDEX `grants_live_user_client_workspace_idx` ON `oauth_grants` (`user_id`,`client_id`,`workspace_id`) WHERE "oauth_grants"."revoked_at" IS NULL;
