#!/bin/bash
# es_opensearch_test.sh - the per-item test (es_errors_test.sh: good
# documents indexed once, mapping conflicts in errorfile with the reason,
# a create conflict, retryfailures, counters) against OpenSearch 2.19,
# whose GET / names its distribution, so the module leaves _type out.
ES_FLAVOR=opensearch exec "$(cd "$(dirname "$0")" && pwd)/es_errors_test.sh"
