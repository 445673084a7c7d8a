"""The Redis store: real Redis Streams for streams, Lua-scripted structures for everything else.

URL: ``redis://host:port/db?prefix=spool`` (also ``rediss://`` and ``unix://``). ``prefix`` (default
``spool``, no braces) is the store's own parameter and is taken out; every other parameter goes to
redis-py. Several service processes may share one Redis: every change is one command or one Lua
script (``EVALSHA``), so it is atomic and safe against the other processes. A refused, lost or
timed-out connection raises ``StoreUnavailableError`` from any method, and a Redis at ``maxmemory``
that refuses a command (``-OOM``, under ``noeviction``) its subclass ``StoreFullError``. Redis
refuses before writing: a command whole, a script at its first write that may grow memory (one that
has written runs to its end) and a MULTI whole, reads too; no script or MULTI is left half written.
The clients are redis-py's own, with Spool's defaults for what the URL does not set:
``socket_connect_timeout`` and ``socket_timeout`` 5 s, ``max_connections`` 100, and ``timeout``
35 s, how long a command waits for a free connection of its ``BlockingConnectionPool``. Blocked
reads (long polls) have a pool of their own, without a socket timeout: each is abandoned 10 s after
its BLOCK should have ended. A lease long poll has no blocking command of its own: whatever makes
a job ready now (a publish, a release, a nack without delay, a retry) rings the queue's doorbell
stream, and one reader per queue in each process blocks on it for the leases of that process
waiting there (``doorbell.py``), which also look again every 50 ms.

On Redis Cluster: ``redis+cluster://host:port[,host:port...]/?prefix=spool`` (``rediss+cluster://``
for TLS; database 0 only; the nodes listed are where discovery starts). The store then uses
redis-py's cluster client, and nothing else changes: every script and every MULTI touches keys of
one hash tag only (below), so each runs whole on the master of that slot, atomic as on one Redis.
Only these differ: listing queues runs their scripts side by side (a cluster pipeline refuses
EVALSHA); each client's commands wait in a ``gate`` of ``max_connections`` places for up to
``timeout``, since redis-py's cluster client fails a command at once when a node has that many
connections in use, and the gate ends a command at ``socket_timeout``, redis-py's retries
included, which would otherwise wait that long again on each try; a master that is down, or a
slot still moving once redis-py's retries end, raises ``StoreUnavailableError`` for the keys it
holds only.

Key scheme (``<p>`` is the prefix). A hash tag (``{…}``) puts everything one script touches in one
Redis Cluster slot: one stream, one queue, all messages, all URL groups, all schedules. So streams and queues
spread over a cluster's masters, while all messages (their due index, dead letters, deduplication
keys and sequence) share one slot, and so one master; a quota counter and the queue name set are
keys of their own, each changed by one command or single-key script.

=================================================  ============================================
``<p>:s:{<stream>}``                               the stream itself (a Redis stream)
``<p>:s:{<stream>}:groups``                        hash: group -> ``max_deliveries`` (when set)
``<p>:s:{<stream>}.dead``                          the stream ``<stream>.dead`` (its dead letters)
``<p>:q:{<queue>}:meta``                           hash: settings, ``created_at``, job ``seq``
``<p>:q:{<queue>}:job:<job_id>``                   hash: one job
``<p>:q:{<queue>}:all``                            zset: every job, by publish sequence
``<p>:q:{<queue>}:avail``                          zset: ready jobs that are due, by sequence
``<p>:q:{<queue>}:delayed``                        zset: ready jobs not yet due, by ``available_at``
``<p>:q:{<queue>}:leased``                         zset: leased jobs, by lease expiry
``<p>:q:{<queue>}:done`` / ``:dead``               zsets: finished jobs, by when they finished
``<p>:q:{<queue>}:dedup`` / ``:dedup_exp``         hash ``deduplication_id -> job_id``, zset expiry
``<p>:q:{<queue>}:bell``                           stream: the last 16 publishes of ready jobs
``<p>:queues``                                     set: queue names, for listing
``<p>:{streams}:names``                            zset: stream names (all scored 0), for listing
``<p>:m:{messages}:msg:<message_id>``              hash: one message and its attempts
``<p>:m:{messages}:due``                           zset: scheduled/delivering messages, by next try
``<p>:m:{messages}:dead``                          zset: dead letters, by when they failed
``<p>:m:{messages}:dedup`` / ``:dedup_exp``        hash ``dedup_key -> created_at message_id``, zset
``<p>:m:{messages}:seq``                           counter: publish and failure order
``<p>:m:{messages}:all``                           zset: every message id, by publish sequence
``<p>:listing-indexed``                            string: set once the two above caught up
``<p>:u:{url_groups}:groups``                      hash: name -> ``<updated_at> <endpoints JSON>``
``<p>:u:{url_groups}:created``                     hash: name -> creation time
``<p>:sc:{schedules}:s:<name>``                    hash: one schedule, its next tick and claim
``<p>:sc:{schedules}:runs:<name>``                 list: its recent runs' JSON, newest first
``<p>:sc:{schedules}:names``                       zset: schedule names (all scored 0), for listing
``<p>:sc:{schedules}:due``                         zset: unpaused schedules, by next claim time
``<p>:s:{<stream>}:idem:<key>``                    hash: an idempotent append's record (TTL)
``<p>:q:{<queue>}:idem:<key>``                     hash: an idempotent job publish's record (TTL)
``<p>:m:{messages}:idem:<key>``                    hash: an idempotent message publish's record
``<p>:quota:<token_id>``                           string: a token's message count
``<p>:rate:<key>``                                 hash: a rate-limit bucket (``tokens``, ``at``)
``<p>:console:<key>``                              hash: a console session (TTL)
=================================================  ============================================

An idempotency record lives in the slot of what its write changes, so the write's own script
reads it and, for a new write, keeps the write's result in it (``lua/lib/idempotency.lua``): one
``EVALSHA`` either replays or writes and records. It holds ``request_hash``, ``expires_at`` (by the
store's clock, which decides) and ``result``, the script's answer as JSON; Redis drops it by its TTL.
Records outlive the stream or queue they were written to, as a repeat must not publish again.

Scripts derive job and message hash keys from ids they read; those keys carry the same hash tag as
the script's declared keys, so they are in the same slot. Listing queues crosses slots, so the
``<p>:queues`` set is updated around the (single-slot) queue scripts: a queue is listed after it is
created and unlisted after it is deleted (and listed again if a concurrent put recreated it);
listing skips names whose queue is gone.

Listing streams reads ``<p>:{streams}:names`` by name (ZRANGE BYLEX), then each stream's XINFO
STREAM, pipelined: never a scan of the keyspace. The names live in a slot of their own, so they are
kept beside the stream scripts, not in them: an append that found its stream empty (perhaps new)
adds the name, as do ``create_group`` with ``mkstream`` and a claim that dead-lettered an entry
(for ``<stream>.dead``), and ``delete_stream`` removes it; adding a listed name again changes
nothing. A name whose stream is gone is skipped and forgotten by the listing. Message ids are listed
in ``<p>:m:{messages}:all`` by the publish script itself, newest first by their publish sequence;
one listing page is one script that looks at up to a thousand messages for those that pass its
filters. Opening the store adds the streams and messages of a database written before these
indexes existed (``indexes``: one SCAN of the keyspace, on every master of a cluster), once: the
key ``<p>:listing-indexed`` records that it ran.

Streams: entries are XADDed with ``*`` (Redis's ids, strictly increasing even when the clock steps
back) and hold the field ``b``, the body's JSON text, and ``t``, the publisher's ``traceparent``
when it sent one (a job's and a message's hash keep it as ``traceparent``). An append is one script: XADD each body, then
XTRIM; ``trimmed`` is the length before plus the entries added minus the length after. ``MAXLEN ~
n`` keeps at least ``n`` entries and trims whole macro nodes only (``stream-node-max-entries``, 100
by default), so a stream of fewer entries than that is never trimmed approximately; ``MAXLEN = n``
keeps exactly ``n``. A claim reads a window of ``count``
pending entries with XPENDING, then lets XAUTOCLAIM act on exactly the entries of that window it
will claim or drop (XAUTOCLAIM alone would look at up to ten times ``count``); Redis 7 lists the
pending ids whose entries were trimmed away, which become ``deleted_ids``. Idle times are Redis's.
A group's ``max_deliveries`` lives beside the stream (a consumer group holds no settings of its own);
the claim script XACKs an entry that used them up and XADDs its dead letter to the stream
``<stream>.dead``, whose key (``<p>:s:{<stream>}.dead``) carries its stream's hash tag, so the
claim stays in one slot on a cluster too.

Rate limits: a bucket is refilled and taken from in one script by Redis's own ``TIME``, so every
process sharing the Redis shares the bucket whatever its own clock says; the key expires once the
bucket would be full again, which is the same as absent.

Queues: a job's ``max_attempts`` is its queue's current setting. Scripts first *settle* the queue to
``now``: due delayed jobs become available, ended leases become available (or dead without attempts
left), and finished jobs past their retention and deduplication ids past their window go (a
thousand of each per call). Reads compute a job's state at ``now`` from its hash, settled or not.

Messages: a message hash holds its fields, its attempts (``attempt:<n>``) and, while it is
delivering, its ``lease_id``. A hash written before the store counted retry budgets has no
``retries_used``; it counts as ``attempt_count % (retries + 1)`` (the delivery engine's earlier
rule) until its next recorded attempt writes the field.

Time: the store reads the time only through ``clock`` (``time.time``; public: tests replace it) and
passes ``now`` into every script, so leases, delays, deduplication windows and idempotency records
follow that clock rather than Redis's; long polls wait on the monotonic clock. Settling is not
undone when the clock steps back, except that a job made available too early is not leased but
returned to the delayed set. Numbers a script computes are written with ``%.17g``, which
round-trips a double exactly (Redis would round a Lua number to 14 digits).

The package has one module per idea: ``core`` (connections, life cycle, the script runner, an
idempotent write), ``streams``, ``queues``, ``messages`` (with dead letters and URL groups),
``limits`` (quotas, rate limits), ``sessions`` (the console's) and ``schedules`` add one
resource's hooks each
to ``RedisCore`` (the methods ``Store``'s public methods call once they have checked their
arguments, ``_append`` and so on), and ``store`` composes them into ``RedisStore``. ``keys``
names every key, ``indexes`` catches the listing indexes up on open, ``scripts`` reads the Lua of
``lua/``, ``records`` turns hashes into records, ``arguments`` writes values into script
arguments, ``errors`` maps refusals and outages to store errors, ``connection`` and ``cluster``
make the clients.
"""

from __future__ import annotations

from .keys import DEFAULT_PREFIX
from .store import RedisStore

__all__ = ["DEFAULT_PREFIX", "RedisStore"]
