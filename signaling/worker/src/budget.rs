//! The service-wide daily budget of WebSocket upgrades
//! ([`signaling_core::DailyBudget`]): one Durable Object for the whole
//! deployment (`idFromName("budget")`), which the entry Worker asks before
//! it hands an upgrade (lobby, room or relay) to its object. With
//! `DAILY_UPGRADES` at 0 (the default) nothing is asked and nothing counted.
//!
//! Each question costs one Durable Object request, so a budget of N a day
//! adds N requests to the day's total; `docs/deploy.md` says how to choose
//! N for the Workers Free plan.

// `#[durable_object]` generates undocumented JavaScript bindings.
#![allow(missing_docs)]

use signaling_core::{DailyBudget, Level, LogRecord};
use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

use crate::host::{self, error_response, json_response, Logger};

/// The one budget object's name.
pub const BUDGET_NAME: &str = "budget";

/// Storage key of the day's count.
const COUNT_KEY: &str = "day";

/// The object holding the day's [`DailyBudget`].
#[durable_object]
pub struct BudgetObject {
    state: State,
    env: Env,
}

impl DurableObject for BudgetObject {
    fn new(state: State, env: Env) -> Self {
        BudgetObject { state, env }
    }

    /// `POST /take?allowance=N`, from the entry Worker only: 201 when the
    /// upgrade may go ahead (and is counted), 503 when the day's allowance
    /// is spent.
    async fn fetch(&self, req: Request) -> Result<Response> {
        let config = host::config(&self.env);
        let logger = Logger::new(&config);
        let url = req.url()?;
        let Some(allowance) =
            signaling_protocol::query_param(url.query().unwrap_or(""), "allowance")
                .and_then(|v| v.parse::<u64>().ok())
        else {
            return error_response(400, "bad request");
        };
        let storage = self.state.storage();
        let text: Option<String> = storage.get(COUNT_KEY).await?;
        let mut budget: DailyBudget = text
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default();
        let before = budget;
        let allowed = budget.take(host::now().0, allowance);
        if budget != before {
            let text = serde_json::to_string(&budget).unwrap_or_default();
            if let Err(e) = storage.put(COUNT_KEY, text).await {
                logger.failure("storage.put_failed", &e);
            }
        }
        if allowed {
            return json_response(201, "{}".to_owned());
        }
        logger
            .record(&LogRecord::new(Level::Warn, "http.budget_spent").with("allowance", allowance));
        error_response(503, DailyBudget::REASON)
    }
}
