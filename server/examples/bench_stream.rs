//! The live stream benchmark's client (`scripts/bench-stream` runs it; docs/BENCHMARKS.md).
//!
//! Against a running `laurel serve` with one incr board: first writes alone at `--rate` per
//! second for `--duration` seconds (the baseline), then the same with `--subscribers` streams
//! open on the board's period. Every write puts a new member on top (`w<i>` with i + 1 points),
//! so every push changes the top 10. Prints, for the second run:
//!   * the delay from a write answered to the first event received by a subscriber (after the
//!     answer) whose top is at least that write, for every 10th write and every subscriber:
//!     p50, p99, max, and how many such pairs saw no event at all;
//!   * the events pushed, and the server's CPU time (utime + stime of `--pid`) per event delivered
//!     to one subscriber: (CPU with subscribers − CPU of the baseline) / events delivered.
//!
//! usage: bench_stream --base http://127.0.0.1:3900 --token <admin> --board <slug> --period <key>
//!          --pid <laurel pid> [--subscribers 2000] [--rate 1000] [--duration 20] [--limit 10]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

struct Args {
    base: String,
    token: String,
    board: String,
    period: String,
    pid: u32,
    subscribers: usize,
    rate: u64,
    duration: u64,
    limit: u64,
}

fn args() -> Args {
    let mut map: HashMap<String, String> = HashMap::new();
    let mut it = std::env::args().skip(1);
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        map.insert(k.trim_start_matches("--").to_owned(), v);
    }
    let get = |k: &str| map.get(k).cloned().unwrap_or_else(|| panic!("--{k} is required"));
    let num = |k: &str, default: u64| map.get(k).map_or(default, |v| v.parse().expect(k));
    Args {
        base: get("base"),
        token: get("token"),
        board: get("board"),
        period: get("period"),
        pid: get("pid").parse().expect("pid"),
        subscribers: num("subscribers", 2000) as usize,
        rate: num("rate", 1000),
        duration: num("duration", 20),
        limit: num("limit", 10),
    }
}

/// CPU seconds (user + system) the process has used so far.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the server's /proc stat");
    let after = &stat[stat.rfind(')').expect("comm") + 2..];
    let fields: Vec<&str> = after.split(' ').collect();
    // Fields 14 and 15 of stat(5), counted from the state (field 3) here.
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    ticks / 100.0
}

/// Sends writes at `rate` per second for `duration`, numbered from `first`; returns when each
/// was answered (by number), and how many failed.
async fn drive_writes(
    client: &reqwest::Client,
    a: &Args,
    first: u64,
    duration: Duration,
) -> (HashMap<u64, Instant>, u64) {
    let answered = Arc::new(Mutex::new(HashMap::new()));
    let failed = Arc::new(AtomicU64::new(0));
    let in_flight = Arc::new(tokio::sync::Semaphore::new(256));
    let url = format!("{}/api/v1/boards/{}/events", a.base, a.board);
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / a.rate));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    let mut i = first;
    while started.elapsed() < duration {
        tick.tick().await;
        let permit = Arc::clone(&in_flight).acquire_owned().await.unwrap();
        let body = format!(r#"{{"event_id":"b{i}","member":"w{i}","delta":{}}}"#, i + 1);
        let request =
            client.post(&url).bearer_auth(&a.token).header("content-type", "application/json").body(body);
        let (answered, failed) = (Arc::clone(&answered), Arc::clone(&failed));
        tasks.spawn(async move {
            match request.send().await {
                Ok(r) if r.status().is_success() => {
                    let _ = r.bytes().await;
                    answered.lock().unwrap().insert(i, Instant::now());
                }
                _ => {
                    failed.fetch_add(1, Ordering::Relaxed);
                }
            }
            drop(permit);
        });
        i += 1;
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    let answered = std::mem::take(&mut *answered.lock().unwrap());
    (answered, failed.load(Ordering::Relaxed))
}

/// The number of the member on top of a `ranking` event's data (`"member":"w<i>"`), if any.
fn top_index(data: &str) -> Option<u64> {
    let at = data.find("\"entries\":[")?;
    let rest = &data[at..];
    let m = rest.find("\"member\":\"w")? + "\"member\":\"w".len();
    let digits: String = rest[m..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// One subscriber: reads its stream and records (when, top index) of every ranking event.
async fn subscribe(
    client: reqwest::Client,
    url: String,
    ready: Arc<AtomicUsize>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Vec<(Instant, u64)> {
    let mut seen = Vec::new();
    let Ok(mut response) = client.get(&url).send().await else { return seen };
    let mut buffer = String::new();
    let mut first = 0;
    loop {
        let chunk = tokio::select! {
            chunk = response.chunk() => chunk,
            _ = stop.changed() => return seen,
        };
        let Ok(Some(bytes)) = chunk else { return seen };
        let now = Instant::now();
        buffer.push_str(std::str::from_utf8(&bytes).expect("utf-8"));
        while let Some(end) = buffer.find("\n\n") {
            let frame: String = buffer.drain(..end + 2).collect();
            if frame.contains("\nevent: ranking\n") {
                first += 1;
                if first == 1 {
                    ready.fetch_add(1, Ordering::Relaxed);
                } else {
                    seen.push((now, top_index(&frame).unwrap_or(0)));
                }
            }
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

#[tokio::main]
async fn main() {
    let a = args();
    let duration = Duration::from_secs(a.duration);
    let settle = Duration::from_millis(1500);
    let client = reqwest::Client::builder().pool_max_idle_per_host(512).build().unwrap();

    // 1. The baseline: the writes alone.
    let cpu_before = cpu_seconds(a.pid);
    let (baseline, baseline_failed) = drive_writes(&client, &a, 1, duration).await;
    tokio::time::sleep(settle).await;
    let cpu_baseline = cpu_seconds(a.pid) - cpu_before;
    println!(
        "baseline: {} writes in {:?} ({} failed), server CPU {:.2} s",
        baseline.len(),
        duration,
        baseline_failed,
        cpu_baseline
    );

    // 2. The same writes with the subscribers.
    let url = format!("{}/api/v1/boards/{}/periods/{}/stream?limit={}", a.base, a.board, a.period, a.limit);
    let ready = Arc::new(AtomicUsize::new(0));
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut subscribers = tokio::task::JoinSet::new();
    let connecting = Instant::now();
    for _ in 0..a.subscribers {
        // A client per stream: each holds its own connection.
        let client = reqwest::Client::builder().build().unwrap();
        subscribers.spawn(subscribe(client, url.clone(), Arc::clone(&ready), stopped.clone()));
    }
    while ready.load(Ordering::Relaxed) < a.subscribers {
        assert!(
            connecting.elapsed() < Duration::from_secs(120),
            "only {} streams opened",
            ready.load(Ordering::Relaxed)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("{} streams open in {:?}", a.subscribers, connecting.elapsed());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let first = baseline.keys().max().copied().unwrap_or(0) + 1_000_000;
    let cpu_before = cpu_seconds(a.pid);
    let (answered, failed) = drive_writes(&client, &a, first, duration).await;
    tokio::time::sleep(settle).await;
    let cpu_with = cpu_seconds(a.pid) - cpu_before;
    stop.send(true).unwrap();
    let mut streams = Vec::new();
    while let Some(seen) = subscribers.join_next().await {
        streams.push(seen.expect("subscriber task"));
    }

    // Delay per (sampled write, subscriber): the first event after the answer that is at least
    // as new.
    let mut sampled: Vec<(u64, Instant)> =
        answered.iter().filter(|(i, _)| (*i - first) % 10 == 0).map(|(i, t)| (*i, *t)).collect();
    sampled.sort();
    let mut delays = Vec::with_capacity(sampled.len() * streams.len());
    let mut unseen = 0u64;
    let mut events = 0u64;
    for seen in &streams {
        events += seen.iter().filter(|(_, top)| *top >= first).count() as u64;
        for (i, at) in &sampled {
            match seen.iter().find(|(when, top)| when >= at && top >= i) {
                Some((when, _)) => delays.push(*when - *at),
                None => unseen += 1,
            }
        }
    }
    delays.sort();
    let per_event_us = (cpu_with - cpu_baseline).max(0.0) / events.max(1) as f64 * 1e6;
    println!(
        "with {} streams: {} writes in {:?} ({} failed), {} events delivered ({:.1} per stream per second), server CPU {:.2} s",
        streams.len(),
        answered.len(),
        duration,
        failed,
        events,
        events as f64 / streams.len().max(1) as f64 / (duration + settle).as_secs_f64(),
        cpu_with
    );
    println!(
        "RESULT delay_p50_ms={:.1} delay_p99_ms={:.1} delay_max_ms={:.1} pairs={} unseen={} cpu_baseline_s={:.2} cpu_with_s={:.2} events={} cpu_per_event_per_subscriber_us={:.2}",
        percentile(&delays, 0.50).as_secs_f64() * 1e3,
        percentile(&delays, 0.99).as_secs_f64() * 1e3,
        delays.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        delays.len(),
        unseen,
        cpu_baseline,
        cpu_with,
        events,
        per_event_us
    );
}
