#!/bin/bash
echo "start $(date +%s.%N)"
sleep 60
echo "end $(date +%s.%N)"
