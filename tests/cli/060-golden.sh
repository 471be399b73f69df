#!/bin/bash
# The demo's summary and report equal testdata/golden/ (make golden rewrites
# them; a change there needs a commit that says why).
exec "$VT_ROOT/tests/golden.sh" "$VT_BUILD" --check
