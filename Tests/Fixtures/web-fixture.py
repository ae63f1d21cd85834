#!/usr/bin/env python3
"""A loopback stand-in for the web APIs breezed uses, for tests and the offline quick start.

Serves real-shaped payloads for Open-Meteo (air quality, pollen, archive, forecast, geocoding), Google Pollen and
Nominatim at their real paths, and faults on demand. Binds 127.0.0.1 on the given port (0: any free port) and
prints the port on the first line of standard output. With a certificate and its key (PEM files) as the second
and third arguments it serves HTTPS.

Control endpoints (for tests):
  POST /_faults    {"path": "/v1/air-quality", "match": "us_aqi", "kind": "429", "count": 2,
                    "retry_after": 1, "delay": 0.5}
                   The next `count` requests whose path starts with `path` and whose query contains `match` get
                   the fault. Kinds: 400, 429, 500, 503, stall (wait `delay` seconds, then answer normally),
                   truncated, invalid-json, wrong-types, empty, huge (a Content-Length body of `size` bytes),
                   values (the normal answer with `top` merged into the body and `current` into its `current`
                   object: hostile numbers), endless-chunked (a chunked body that never ends), chunked (a chunked
                   body of `size` bytes), trickle (a Content-Length body of `size` bytes sent at `rate` bytes a
                   second). The error kinds answer with `reason` instead of their own when it is given.
  GET  /_requests  Every request so far: path, query, start, end (Unix seconds), status.
  POST /_reset     Forget faults and requests.
"""
import datetime
import json
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

from loopback_server import serve

LOCK = threading.Lock()
FAULTS = []
REQUESTS = []

CITIES = [
    (2657896, "Zurich", 47.36667, 8.55, "Switzerland", "CH", "Zurich", 341730, "Europe/Zurich"),
    (2657908, "Zug", 47.17242, 8.51745, "Switzerland", "CH", "Zug", 23435, "Europe/Zurich"),
    (2661552, "Bern", 46.94809, 7.44744, "Switzerland", "CH", "Bern", 121631, "Europe/Zurich"),
    (2988507, "Paris", 48.85341, 2.3488, "France", "FR", "Île-de-France", 2138551, "Europe/Paris"),
    (2147714, "Sydney", -33.86785, 151.20732, "Australia", "AU", "New South Wales", 4627345, "Australia/Sydney"),
    (5128581, "New York", 40.71427, -74.00597, "United States", "US", "New York", 8804190, "America/New_York"),
    (1850147, "Tokyo", 35.6895, 139.69171, "Japan", "JP", "Tokyo", 8336599, "Asia/Tokyo"),
]


def in_europe(lat, lon):
    return 34 <= lat <= 72 and -25 <= lon <= 45


def utc_offset(lon):
    return int(round(lon / 15.0)) * 3600


def local_now(lon):
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=utc_offset(lon))


def air_quality(query):
    lat, lon = float(query["latitude"]), float(query["longitude"])
    variables = query.get("current", "").split(",")
    now = local_now(lon).replace(minute=0, second=0, microsecond=0)
    current = {"time": now.strftime("%Y-%m-%dT%H:%M"), "interval": 3600}
    units = {"time": "iso8601", "interval": "seconds"}
    pollen = {"alder_pollen": 0.0, "birch_pollen": 12.4, "grass_pollen": 31.0, "mugwort_pollen": 0.0,
              "olive_pollen": None, "ragweed_pollen": 2.0}
    air = {"us_aqi": 20 + int(abs(lat)) % 40, "pm10": 12.1, "pm2_5": 5.3, "carbon_monoxide": 181.0,
           "nitrogen_dioxide": 14.2, "sulphur_dioxide": None, "ozone": 61.0}
    for name in variables:
        if name in pollen:
            current[name] = pollen[name] if in_europe(lat, lon) else None
            units[name] = "grains/m³"
        elif name in air:
            current[name] = air[name]
            units[name] = "USAQI" if name == "us_aqi" else "μg/m³"
    return {"latitude": lat, "longitude": lon, "generationtime_ms": 0.2, "utc_offset_seconds": utc_offset(lon),
            "timezone": "GMT", "timezone_abbreviation": "GMT", "elevation": 400.0,
            "current_units": units, "current": current}


def daily(query, days):
    lat, lon = float(query["latitude"]), float(query["longitude"])
    values = [round(8.0 + (day.year - 1980) * 0.04 + lat / 20.0, 1) for day in days]
    return {"latitude": lat, "longitude": lon, "generationtime_ms": 0.3, "utc_offset_seconds": utc_offset(lon),
            "timezone": "GMT", "timezone_abbreviation": "GMT", "elevation": 400.0,
            "daily_units": {"time": "iso8601", "temperature_2m_max": "°C"},
            "daily": {"time": [day.isoformat() for day in days], "temperature_2m_max": values}}


def archive(query):
    start = datetime.date.fromisoformat(query["start_date"])
    end = datetime.date.fromisoformat(query["end_date"])
    days = [start + datetime.timedelta(days=n) for n in range((end - start).days + 1)]
    return daily(query, days)


def forecast(query):
    lat, lon = float(query["latitude"]), float(query["longitude"])
    now = local_now(lon)
    today = now.date()
    days = [today + datetime.timedelta(days=n) for n in range(int(query.get("forecast_days", "1")))]
    answer = daily(query, days)
    requested = query.get("daily", "temperature_2m_max").split(",")
    # The weather: the same place always gets the same values, as the real API does within an hour.
    codes = [0, 2, 3, 61, 80, 95, 45]
    series = {
        "weather_code": [codes[(int(abs(lat)) + n) % len(codes)] for n in range(len(days))],
        "temperature_2m_min": [round(value - 9.5, 1) for value in answer["daily"]["temperature_2m_max"]],
        "precipitation_probability_max": [(n * 15) % 100 for n in range(len(days))],
    }
    for name in requested:
        if name in series:
            answer["daily"][name] = series[name]
            answer["daily_units"][name] = "wmo code" if name == "weather_code" else "°C" if "temperature" in name else "%"
    if "current" in query:
        current = {"time": now.replace(minute=0, second=0, microsecond=0).strftime("%Y-%m-%dT%H:%M"), "interval": 900}
        values = {"temperature_2m": round(4.0 + lat / 10.0, 1), "apparent_temperature": round(1.5 + lat / 10.0, 1),
                  "weather_code": codes[int(abs(lat)) % len(codes)], "is_day": 1 if 6 <= now.hour < 18 else 0,
                  "relative_humidity_2m": 81, "wind_speed_10m": 11.2}
        for name in query["current"].split(","):
            if name in values:
                current[name] = values[name]
        answer["current"] = current
        answer["current_units"] = {"time": "iso8601", "interval": "seconds", "temperature_2m": "°C"}
    return answer


def search(query):
    name = query.get("name", "").strip().lower()
    found = [c for c in CITIES if c[1].lower().startswith(name)][: int(query.get("count", "10"))]
    if not found:
        return {"generationtime_ms": 0.4}
    return {"results": [
        {"id": c[0], "name": c[1], "latitude": c[2], "longitude": c[3], "country": c[4], "country_code": c[5],
         "admin1": c[6], "population": c[7], "timezone": c[8], "feature_code": "PPLA"} for c in found],
        "generationtime_ms": 0.4}


def google_pollen(query):
    lat = float(query["location.latitude"])
    in_season = lat >= 0
    today = datetime.date.today()

    def info(code, name, value, category):
        item = {"code": code, "displayName": name, "inSeason": in_season}
        if in_season:
            item["indexInfo"] = {"code": "UPI", "displayName": "Universal Pollen Index", "value": value,
                                 "category": category, "indexDescription": "", "color": {"green": 0.6}}
        return item

    return {"regionCode": "XX", "dailyInfo": [{
        "date": {"year": today.year, "month": today.month, "day": today.day},
        "pollenTypeInfo": [info("GRASS", "Grass", 2, "Low"), info("TREE", "Tree", 3, "Moderate"),
                           info("WEED", "Weed", 1, "Very Low")],
        "plantInfo": [info("BIRCH", "Birch", 3, "Moderate"), info("RAGWEED", "Ragweed", 1, "Very Low")]}]}


def reverse(query):
    lat, lon = float(query["lat"]), float(query["lon"])
    return {"place_id": 123456, "lat": str(lat), "lon": str(lon), "display_name": "Fixture Town, Fixture Land",
            "address": {"town": "Fixture Town", "state": "Fixture State", "country": "Fixture Land",
                        "country_code": "fx"}}


ROUTES = {
    "/v1/air-quality": air_quality, "/v1/archive": archive, "/v1/forecast": forecast, "/v1/search": search,
    "/v1/forecast:lookup": google_pollen, "/reverse": reverse,
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers:
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        with LOCK:
            if self.path == "/_faults":
                fault = json.loads(body)
                fault.setdefault("count", 1)
                FAULTS.append(fault)
            elif self.path == "/_reset":
                FAULTS.clear()
                REQUESTS.clear()
            else:
                return self.send(404, {"error": True, "reason": "no such control"})
        self.send(200, {"ok": True})

    def take_fault(self, path, raw_query):
        with LOCK:
            for fault in FAULTS:
                if path.startswith(fault.get("path", "")) and fault.get("match", "") in raw_query:
                    fault["count"] -= 1
                    if fault["count"] <= 0:
                        FAULTS.remove(fault)
                    return dict(fault)
        return None

    def do_GET(self):
        parsed = urllib.parse.urlsplit(self.path)
        if parsed.path == "/_requests":
            with LOCK:
                return self.send(200, list(REQUESTS))
        raw_query = urllib.parse.unquote(parsed.query)
        record = {"path": parsed.path, "query": raw_query, "start": time.time(), "end": None, "status": None}
        with LOCK:
            REQUESTS.append(record)
        try:
            record["status"] = self.answer(parsed.path, raw_query, dict(urllib.parse.parse_qsl(parsed.query)))
        except (BrokenPipeError, ConnectionResetError):
            record["status"] = "closed"
        finally:
            record["end"] = time.time()

    def answer(self, path, raw_query, query):
        route = ROUTES.get(path)
        if route is None:
            self.send(404, {"error": True, "reason": "Not found"})
            return 404
        fault = self.take_fault(path, raw_query)
        kind = fault["kind"] if fault else None
        retry = [("Retry-After", str(fault["retry_after"]))] if fault and "retry_after" in fault else []
        reason = fault.get("reason") if fault else None
        if kind == "400":
            self.send(400, {"error": True, "reason": reason or "Parameter 'latitude' is out of range"})
            return 400
        if kind == "429":
            self.send(429, {"error": True, "reason": reason or "Minutely API request limit exceeded. Please try again in one minute."}, retry)
            return 429
        if kind == "500":
            self.send(500, b"<html><body>Internal Server Error</body></html>")
            return 500
        if kind == "503":
            self.send(503, {"error": True, "reason": reason or "Service temporarily overloaded"}, retry)
            return 503
        if kind == "stall":
            time.sleep(float(fault.get("delay", 3600)))
        body = route(query)
        if kind == "wrong-types":
            current = body.get("current", {})
            for name, wrong in (("us_aqi", "high"), ("birch_pollen", "lots")):
                if name in current:
                    current[name] = wrong
            if "daily" in body:
                body["daily"]["temperature_2m_max"] = ["warm"]
        if kind == "values":
            body.update(fault.get("top", {}))
            if "current" in body:
                body["current"].update(fault.get("current", {}))
        if kind == "truncated":
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return 200
        if kind == "invalid-json":
            self.send(200, b'{"latitude": 47.4, "current": {"time": "2026-11-30T10:00", "us_aqi": 2')
            return 200
        if kind == "empty":
            self.send(200, b"")
            return 200
        if kind == "huge":
            size = int(fault.get("size", 64 << 20))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            chunk = b" " * 65536
            sent = 0
            while sent < size:
                self.wfile.write(chunk[: min(len(chunk), size - sent)])
                sent += len(chunk)
            return 200
        if kind in ("endless-chunked", "chunked"):
            return self.send_chunked(None if kind == "endless-chunked" else int(fault.get("size", 50 << 20)))
        if kind == "trickle":
            return self.send_trickle(int(fault.get("size", 512 << 10)), float(fault.get("rate", 1024)))
        self.send(200, body)
        return 200

    def send_chunked(self, size):
        """A chunked body of `size` spaces, or without end when `size` is None, as fast as the client reads."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        chunk = b" " * 65536
        sent = 0
        while size is None or sent < size:
            part = chunk if size is None else chunk[: min(len(chunk), size - sent)]
            self.wfile.write(b"%x\r\n" % len(part) + part + b"\r\n")
            sent += len(part)
        self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True
        return 200

    def send_trickle(self, size, rate):
        """A Content-Length body of `size` spaces at `rate` bytes a second: never stalled, never done in time."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        step = max(1, int(rate / 10))
        sent = 0
        while sent < size:
            part = min(step, size - sent)
            self.wfile.write(b" " * part)
            self.wfile.flush()
            sent += part
            time.sleep(part / rate)
        self.close_connection = True
        return 200


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    serve(Handler, port, *sys.argv[2:4])


if __name__ == "__main__":
    main()
