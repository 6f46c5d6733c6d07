"""The Plan and release page: a study plan in the session, its allocation, previews and one release of it all."""
