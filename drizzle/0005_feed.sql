-- Feed: per-profile window totals relative to the hour the table is current for
-- (feed_windows_state.as_of), so that every sort of /v2/feed reads one index (docs/DATA.md "Feed windows").
CREATE TABLE "profile_windows" (
	"url_id" uuid NOT NULL,
	"country" text NOT NULL,
	"language" text NOT NULL,
	"imp_1h" bigint DEFAULT 0 NOT NULL,
	"imp_24h" bigint DEFAULT 0 NOT NULL,
	"imp_7d" bigint DEFAULT 0 NOT NULL,
	"imp_30d" bigint DEFAULT 0 NOT NULL,
	"prev_1h" bigint,
	"prev_24h" bigint,
	"prev_7d" bigint,
	"prev_30d" bigint,
	"derived" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "profile_windows_url_id_country_language_pk" PRIMARY KEY("url_id","country","language")
);
--> statement-breakpoint
CREATE TABLE "feed_windows_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"as_of" timestamp with time zone NOT NULL,
	"prev_as_of" timestamp with time zone NOT NULL,
	"pending" boolean DEFAULT false NOT NULL,
	CONSTRAINT "feed_windows_state_single" CHECK ("id" = 1)
);
--> statement-breakpoint
INSERT INTO "feed_windows_state" ("id", "as_of", "prev_as_of") VALUES (1, '-infinity', '-infinity');--> statement-breakpoint
CREATE INDEX "profile_windows_1h_idx" ON "profile_windows" USING btree ("imp_1h","url_id","country","language");--> statement-breakpoint
CREATE INDEX "profile_windows_24h_idx" ON "profile_windows" USING btree ("imp_24h","url_id","country","language");--> statement-breakpoint
CREATE INDEX "profile_windows_7d_idx" ON "profile_windows" USING btree ("imp_7d","url_id","country","language");--> statement-breakpoint
CREATE INDEX "profile_windows_30d_idx" ON "profile_windows" USING btree ("imp_30d","url_id","country","language");--> statement-breakpoint
CREATE INDEX "profile_windows_derived_idx" ON "profile_windows" USING btree ("derived","url_id","country","language");--> statement-breakpoint
CREATE INDEX "url_profiles_first_seen_key_idx" ON "url_profiles" USING btree ("first_seen","url_id","country","language");--> statement-breakpoint
CREATE INDEX "url_profiles_last_seen_key_idx" ON "url_profiles" USING btree ("last_seen","url_id","country","language");--> statement-breakpoint
CREATE INDEX "url_profiles_avg_position_key_idx" ON "url_profiles" USING btree ("avg_position","url_id","country","language");--> statement-breakpoint
CREATE INDEX "observations_hour_idx" ON "observations" USING btree ("hour");
--> statement-breakpoint
-- `/A/B/C` -> {/A, /A/B, /A/B/C} (shared/categories.ts categoryPrefixes): the dimension keys a tagged URL belongs to.
CREATE FUNCTION category_prefixes(path text) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(array_to_string((string_to_array(path, '/'))[1:g], '/') ORDER BY g), '{}')
  FROM generate_series(2, cardinality(string_to_array(path, '/'))) AS g
$$;
