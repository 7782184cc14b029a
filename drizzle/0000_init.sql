CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"key_hash" text NOT NULL,
	"key_prefix" text NOT NULL,
	"countries" text[],
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"plan" text NOT NULL,
	"countries" text[] DEFAULT '{}'::text[] NOT NULL,
	"categories" text[],
	"api_enabled" boolean DEFAULT true NOT NULL,
	"mcp_enabled" boolean DEFAULT true NOT NULL,
	"subscription_status" text DEFAULT 'active' NOT NULL,
	"history_days" integer,
	"rate_limit_per_minute" integer,
	"addons" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cities" (
	"id" serial PRIMARY KEY NOT NULL,
	"country_code" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "cities_country_name_uq" UNIQUE("country_code","name")
);
--> statement-breakpoint
CREATE TABLE "countries" (
	"alpha_2" text PRIMARY KEY NOT NULL,
	"alpha_3" text NOT NULL,
	"name" text NOT NULL,
	"region" text NOT NULL,
	"sub_region" text NOT NULL,
	"languages" text[] NOT NULL,
	"population" bigint,
	"internet_population" bigint,
	"mobile_chrome_population" bigint
);
--> statement-breakpoint
CREATE TABLE "discover_profiles" (
	"id" serial PRIMARY KEY NOT NULL,
	"country_code" text NOT NULL,
	"city_id" integer,
	"language" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "languages" (
	"code" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "article_categories" (
	"url_id" uuid NOT NULL,
	"name" text NOT NULL,
	"confidence" real NOT NULL,
	CONSTRAINT "article_categories_url_id_name_pk" PRIMARY KEY("url_id","name")
);
--> statement-breakpoint
CREATE TABLE "article_entities" (
	"url_id" uuid NOT NULL,
	"entity_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"mentions" integer DEFAULT 1 NOT NULL,
	"unified_score" double precision NOT NULL,
	"embedding_similarity" double precision NOT NULL,
	"source" text NOT NULL,
	CONSTRAINT "article_entities_url_id_entity_id_pk" PRIMARY KEY("url_id","entity_id")
);
--> statement-breakpoint
CREATE TABLE "articles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"domain" text NOT NULL,
	"publisher" text NOT NULL,
	"favicon_url" text DEFAULT '' NOT NULL,
	"title" text NOT NULL,
	"title_en" text,
	"summary" text DEFAULT '' NOT NULL,
	"summary_en" text,
	"body" text DEFAULT '' NOT NULL,
	"content_language" text NOT NULL,
	"date_published" timestamp with time zone,
	"date_modified" timestamp with time zone,
	"meta" jsonb,
	"enrichment" jsonb,
	"rss_feeds" jsonb,
	"images" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"markdown_content" text,
	"image_url" text,
	"first_seen_at" timestamp with time zone NOT NULL,
	"refreshed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "articles_url_unique" UNIQUE("url")
);
--> statement-breakpoint
CREATE TABLE "entities" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"normalized_name" text NOT NULL,
	"entity_types" text[] DEFAULT '{}'::text[] NOT NULL,
	"wikipedia_url" text DEFAULT '' NOT NULL,
	"kg_id" text,
	"kg_name" text,
	"kg_description" text,
	"kg_image_url" text,
	CONSTRAINT "entities_normalized_name_unique" UNIQUE("normalized_name"),
	CONSTRAINT "entities_kg_id_unique" UNIQUE("kg_id")
);
--> statement-breakpoint
CREATE TABLE "market_days" (
	"country" text NOT NULL,
	"language" text NOT NULL,
	"day" date NOT NULL,
	"impressions" bigint DEFAULT 0 NOT NULL,
	"new_urls" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "market_days_country_language_day_pk" PRIMARY KEY("country","language","day")
);
--> statement-breakpoint
CREATE TABLE "observations" (
	"url_id" uuid NOT NULL,
	"country" text NOT NULL,
	"language" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"impressions" integer NOT NULL,
	"position" real NOT NULL,
	CONSTRAINT "observations_url_id_country_language_hour_pk" PRIMARY KEY("url_id","country","language","hour")
);
--> statement-breakpoint
CREATE TABLE "publishers" (
	"domain" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"favicon_url" text,
	"kg_id" text,
	"is_video" boolean DEFAULT false NOT NULL,
	"profile_title" text,
	"followers" bigint
);
--> statement-breakpoint
CREATE TABLE "url_profiles" (
	"url_id" uuid NOT NULL,
	"country" text NOT NULL,
	"language" text NOT NULL,
	"first_seen" timestamp with time zone NOT NULL,
	"last_seen" timestamp with time zone NOT NULL,
	"avg_position" real NOT NULL,
	"content_language_fit" boolean NOT NULL,
	"impressions_total" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "url_profiles_url_id_country_language_pk" PRIMARY KEY("url_id","country","language")
);
--> statement-breakpoint
CREATE TABLE "hierarchy_nodes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"level" integer NOT NULL,
	"label" text NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"label_en" text NOT NULL,
	"label_ru" text NOT NULL,
	"label_local" text,
	"label_local_lang" text,
	"parent_id" uuid,
	"state" text
);
--> statement-breakpoint
CREATE TABLE "trend_articles" (
	"trend_id" uuid NOT NULL,
	"url_id" uuid NOT NULL,
	"assignment_method" text NOT NULL,
	"assignment_score" double precision NOT NULL,
	"trend_role" text NOT NULL,
	"assigned_at" timestamp with time zone NOT NULL,
	CONSTRAINT "trend_articles_trend_id_url_id_pk" PRIMARY KEY("trend_id","url_id")
);
--> statement-breakpoint
CREATE TABLE "trend_edges" (
	"parent_id" uuid NOT NULL,
	"child_id" uuid NOT NULL,
	"relation_type" text NOT NULL,
	"strength" real NOT NULL,
	"established_at" timestamp with time zone NOT NULL,
	CONSTRAINT "trend_edges_parent_id_child_id_pk" PRIMARY KEY("parent_id","child_id")
);
--> statement-breakpoint
CREATE TABLE "trends" (
	"id" uuid PRIMARY KEY NOT NULL,
	"label" text NOT NULL,
	"summary" text DEFAULT '' NOT NULL,
	"label_en" text NOT NULL,
	"label_ru" text NOT NULL,
	"label_local" text,
	"label_local_lang" text,
	"state" text NOT NULL,
	"structural_type" text NOT NULL,
	"semantic_type" text,
	"semantic_type_confidence" real DEFAULT 0 NOT NULL,
	"topic_id" uuid,
	"primary_country" text NOT NULL,
	"country_scope" text[] DEFAULT '{}'::text[] NOT NULL,
	"key_entities" text[] DEFAULT '{}'::text[] NOT NULL,
	"key_topics" text[] DEFAULT '{}'::text[] NOT NULL,
	"peak_date" date,
	"expected_next_peak" date,
	"features" jsonb,
	"first_seen_at" timestamp with time zone,
	"last_article_at" timestamp with time zone,
	"article_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tracking_list_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"list_id" uuid NOT NULL,
	"key" text NOT NULL,
	"name" text NOT NULL,
	"type" text,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	"raw_text" text,
	"match_type" text,
	"position" integer,
	CONSTRAINT "tracking_list_items_key_uq" UNIQUE("list_id","key")
);
--> statement-breakpoint
CREATE TABLE "tracking_lists" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"color_index" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"countries" text[] DEFAULT '{}'::text[] NOT NULL,
	"langs" text[] DEFAULT '{}'::text[] NOT NULL,
	"search_scope" text DEFAULT 'title' NOT NULL,
	"match_types" text[] DEFAULT '{}'::text[] NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"last_scanned_at" timestamp with time zone,
	"next_scan_at" timestamp with time zone,
	"scan_status" text,
	"scan_error" text,
	"extraction_started_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cities" ADD CONSTRAINT "cities_country_code_countries_alpha_2_fk" FOREIGN KEY ("country_code") REFERENCES "public"."countries"("alpha_2") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discover_profiles" ADD CONSTRAINT "discover_profiles_country_code_countries_alpha_2_fk" FOREIGN KEY ("country_code") REFERENCES "public"."countries"("alpha_2") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "discover_profiles" ADD CONSTRAINT "discover_profiles_city_id_cities_id_fk" FOREIGN KEY ("city_id") REFERENCES "public"."cities"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article_categories" ADD CONSTRAINT "article_categories_url_id_articles_id_fk" FOREIGN KEY ("url_id") REFERENCES "public"."articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article_entities" ADD CONSTRAINT "article_entities_url_id_articles_id_fk" FOREIGN KEY ("url_id") REFERENCES "public"."articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "article_entities" ADD CONSTRAINT "article_entities_entity_id_entities_id_fk" FOREIGN KEY ("entity_id") REFERENCES "public"."entities"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "observations" ADD CONSTRAINT "observations_url_id_articles_id_fk" FOREIGN KEY ("url_id") REFERENCES "public"."articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "url_profiles" ADD CONSTRAINT "url_profiles_url_id_articles_id_fk" FOREIGN KEY ("url_id") REFERENCES "public"."articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trend_articles" ADD CONSTRAINT "trend_articles_trend_id_trends_id_fk" FOREIGN KEY ("trend_id") REFERENCES "public"."trends"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trend_articles" ADD CONSTRAINT "trend_articles_url_id_articles_id_fk" FOREIGN KEY ("url_id") REFERENCES "public"."articles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trend_edges" ADD CONSTRAINT "trend_edges_parent_id_trends_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."trends"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trend_edges" ADD CONSTRAINT "trend_edges_child_id_trends_id_fk" FOREIGN KEY ("child_id") REFERENCES "public"."trends"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trends" ADD CONSTRAINT "trends_topic_id_hierarchy_nodes_id_fk" FOREIGN KEY ("topic_id") REFERENCES "public"."hierarchy_nodes"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracking_list_items" ADD CONSTRAINT "tracking_list_items_list_id_tracking_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."tracking_lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tracking_lists" ADD CONSTRAINT "tracking_lists_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_project_idx" ON "api_keys" USING btree ("project_id");--> statement-breakpoint
CREATE INDEX "discover_profiles_country_idx" ON "discover_profiles" USING btree ("country_code");--> statement-breakpoint
CREATE INDEX "discover_profiles_city_idx" ON "discover_profiles" USING btree ("city_id");--> statement-breakpoint
CREATE INDEX "article_categories_name_idx" ON "article_categories" USING btree ("name");--> statement-breakpoint
CREATE INDEX "article_entities_entity_idx" ON "article_entities" USING btree ("entity_id");--> statement-breakpoint
CREATE INDEX "articles_domain_idx" ON "articles" USING btree ("domain");--> statement-breakpoint
CREATE INDEX "articles_first_seen_idx" ON "articles" USING btree ("first_seen_at");--> statement-breakpoint
CREATE INDEX "observations_market_hour_idx" ON "observations" USING btree ("country","hour");--> statement-breakpoint
CREATE INDEX "url_profiles_market_first_seen_idx" ON "url_profiles" USING btree ("country","language","first_seen");--> statement-breakpoint
CREATE INDEX "url_profiles_country_first_seen_idx" ON "url_profiles" USING btree ("country","first_seen");--> statement-breakpoint
CREATE INDEX "url_profiles_last_seen_idx" ON "url_profiles" USING btree ("last_seen");--> statement-breakpoint
CREATE INDEX "hierarchy_nodes_parent_idx" ON "hierarchy_nodes" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "trend_articles_url_idx" ON "trend_articles" USING btree ("url_id");--> statement-breakpoint
CREATE INDEX "trend_edges_child_idx" ON "trend_edges" USING btree ("child_id");--> statement-breakpoint
CREATE INDEX "trends_topic_idx" ON "trends" USING btree ("topic_id");--> statement-breakpoint
CREATE INDEX "trends_last_article_idx" ON "trends" USING btree ("last_article_at");--> statement-breakpoint
CREATE INDEX "trends_country_scope_idx" ON "trends" USING gin ("country_scope");--> statement-breakpoint
CREATE INDEX "tracking_list_items_added_idx" ON "tracking_list_items" USING btree ("list_id","added_at");--> statement-breakpoint
CREATE INDEX "tracking_lists_project_idx" ON "tracking_lists" USING btree ("project_id","updated_at");