#!/bin/sh
# hakaru bulk beside the CouchDB chapter's own method (a curl loop posting a pre-built
# batch file, as benchbulk.sh does) and a keep-alive Python client, against the same
# pouchdb-server and Groonga, batch sizes 100…10000: docs/s ratios and hakaru's client
# CPU per document. See bench/bulk.py for the knobs (DURATION, BATCHES, HAKARU).
# Needs: python3, curl, groonga-bin, node + pouchdb-server (.ci/run installs it), time.
exec python3 "$(dirname "$0")/bulk.py" "$@"
