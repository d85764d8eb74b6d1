"""Report renderers: run and task results turned into Markdown, HTML and JUnit XML text.

Every renderer is a pure function (records in, a string out); writing files is the caller's job.
"""
