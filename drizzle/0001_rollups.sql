CREATE TABLE "mention_matches" (
	"list_id" uuid NOT NULL,
	"term_id" uuid NOT NULL,
	"url_id" uuid NOT NULL,
	"field" text NOT NULL,
	"matched_text" text NOT NULL,
	"snippet" text NOT NULL,
	"matched_at" timestamp with time zone NOT NULL,
	CONSTRAINT "mention_matches_term_id_url_id_field_pk" PRIMARY KEY("term_id","url_id","field")
);
--> statement-breakpoint
CREATE TABLE "dim_days" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"country" text NOT NULL,
	"language" text NOT NULL,
	"day" date NOT NULL,
	"impressions" bigint NOT NULL,
	"position_sum" double precision NOT NULL,
	CONSTRAINT "dim_days_kind_key_country_language_day_pk" PRIMARY KEY("kind","key","country","language","day")
);
--> statement-breakpoint
CREATE TABLE "dim_hours" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"country" text NOT NULL,
	"language" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"impressions" bigint NOT NULL,
	"position_sum" double precision NOT NULL,
	CONSTRAINT "dim_hours_kind_key_country_language_hour_pk" PRIMARY KEY("kind","key","country","language","hour")
);
--> statement-breakpoint
CREATE TABLE "url_dimensions" (
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"url_id" uuid NOT NULL,
	CONSTRAINT "url_dimensions_kind_key_url_id_pk" PRIMARY KEY("kind","key","url_id")
);
--> statement-breakpoint
CREATE TABLE "url_spans" (
	"url_id" uuid NOT NULL,
	"country" text NOT NULL,
	"language" text NOT NULL,
	"start_hour" timestamp with time zone NOT NULL,
	"end_hour" timestamp with time zone NOT NULL,
	CONSTRAINT "url_spans_url_id_country_language_start_hour_pk" PRIMARY KEY("url_id","country","language","start_hour")
);
--> statement-breakpoint
ALTER TABLE "mention_matches" ADD CONSTRAINT "mention_matches_list_id_tracking_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."tracking_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "mention_matches" ADD CONSTRAINT "mention_matches_term_id_tracking_list_items_id_fk" FOREIGN KEY ("term_id") REFERENCES "public"."tracking_list_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "mention_matches_list_url_idx" ON "mention_matches" USING btree ("list_id","url_id");--> statement-breakpoint
CREATE INDEX "url_dimensions_url_idx" ON "url_dimensions" USING btree ("url_id");