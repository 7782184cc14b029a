-- How a project's rate limit and monthly quota are decided (docs/PERFORMANCE.md "Limits at the edge"):
-- 'edge' (default) from counters each isolate keeps and reconciles with Redis in the background,
-- within documented bounds; 'strict' with a synchronous Redis check on every request.
ALTER TABLE "projects" ADD COLUMN "limits_mode" text DEFAULT 'edge' NOT NULL;
--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_limits_mode_check" CHECK ("limits_mode" IN ('edge', 'strict'));
