#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The test command (README.md): sets up what is missing, builds, runs every
# test. See scripts/run-tests.sh.
exec "$(dirname "$0")/../scripts/run-tests.sh" "$@"
