// The whole public API of sluice in one include: the server library
// (Server, Config, Policy) and the clients (SseClient, WsClient, Publisher).
// Link sluice::sluice for the server and sluice::client for the clients
// (find_package(sluice)), or `pkg-config --libs sluice`.
#pragma once

#include "sluice/authorization.hpp"
#include "sluice/client/event.hpp"
#include "sluice/client/options.hpp"
#include "sluice/client/publisher.hpp"
#include "sluice/client/sse_client.hpp"
#include "sluice/client/status.hpp"
#include "sluice/client/url.hpp"
#include "sluice/client/ws_client.hpp"
#include "sluice/config.hpp"
#include "sluice/connection_ref.hpp"
#include "sluice/policy.hpp"
#include "sluice/server.hpp"
#include "sluice/stats.hpp"
