"""Prints which share of one route's requests laurel answered within each bound, between two
scrapes of its /metrics (the request latency histogram, laurel_http_request_duration_seconds).

usage: histogram_share.py BEFORE AFTER ROUTE BOUND_SECONDS...
"""

import re
import sys

LINE = re.compile(r'^laurel_http_request_duration_seconds_(bucket|count)\{(.*)\} (\S+)$')


def series(path, route):
    """(bucket bound or 'count') -> value, for the route's 200 answers to GET."""
    out = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
            if labels.get('route') != route or labels.get('method') != 'GET' or labels.get('status') != '200':
                continue
            out['count' if m.group(1) == 'count' else labels['le']] = float(m.group(3))
    return out


def main():
    before_path, after_path, route, *bounds = sys.argv[1:]
    before, after = series(before_path, route), series(after_path, route)
    delta = {k: after[k] - before.get(k, 0.0) for k in after}
    total = delta.get('count', 0.0)
    if total <= 0:
        sys.exit(f'no requests to {route} between the two scrapes')
    parts = []
    for bound in bounds:
        key = next((k for k in delta if k != 'count' and k != '+Inf' and float(k) == float(bound)), None)
        if key is None:
            sys.exit(f'the histogram has no bucket at {bound} s')
        parts.append(f'{100 * delta[key] / total:.2f} % within {float(bound) * 1000:g} ms')
    print(f'{int(total)} requests, ' + ', '.join(parts))


main()
