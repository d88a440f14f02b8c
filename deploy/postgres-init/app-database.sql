-- deploy/compose.yaml: PostgreSQL runs this once, when it initialises an empty volume. The platform's
-- database (inlay) is the image's POSTGRES_DB; the app keeps its own beside it (docs/deploy.md).
CREATE DATABASE inlay_app OWNER inlay;
