#!/bin/bash
echo "start $(date +%s.%N)"
kill -TERM $$
