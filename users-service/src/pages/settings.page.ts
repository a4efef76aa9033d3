import type { Request, Response, Router } from 'express';
import { defaultAvatarUrl, updateMeBody, type ActiveSuspension } from '@community/contracts';
import type { TxDeps } from '@community/events';
import { parseWith, publicBase, resource } from '@community/http-kit';
import type { Session } from '../domain/accounts/sessions';
import { readMe } from '../domain/users/read-users';
import { accountSuspension } from '../domain/users/suspension';
import { updateMe } from '../domain/users/update-me';
import { assertSessionCsrf, sessionActor } from '../routes/session';
import { suspendedNotice } from './components';
import { csrfInput, formAlert, inputField, textareaField } from './forms';
import { formValue } from '@community/http-kit';
import { html, type Html } from './html';
import { renderPage, SETTINGS_PAGE } from './layout';
import { DELETE_PAGE, EXPORT_PAGE } from './leaving.page';
import { toProblem, type Problem } from './problems';
import { sessionOrLogin } from './navigation';

interface ProfileValues {
  display_name: string;
  bio: string;
  avatar: string;
}

interface SettingsView {
  session: Session;
  values: ProfileValues;
  /** The avatar as it is saved now, for the preview. */
  avatarUrl: string;
  /** The account's active suspension: said at the top, and no form (DESIGN.md §21). */
  suspension: ActiveSuspension | null;
  saved?: boolean;
  problem?: Problem;
}

function showForm(res: Response, status: number, view: SettingsView) {
  const { session } = view;
  renderPage(res, status, {
    title: 'Profile settings',
    session,
    current: 'settings',
    main: html`<h1>Profile settings</h1>
      ${view.saved && html`<div class="alert ok" role="status"><p>Your profile was saved.</p></div>`}
      ${formAlert(view.problem)}
      <p>
        <img class="avatar" src="${view.avatarUrl}" alt="" width="64" height="64" />
        <strong>${session.displayName}</strong> <span class="muted">@${session.username}</span>
      </p>
      ${view.suspension ? suspendedNotice(view.suspension, 'your profile cannot be changed') : profileForm(view)}
      <h2>Your data</h2>
      <p>
        <a id="download-data" href="${EXPORT_PAGE}" download>Download my data</a>: everything the platform
        holds about you, as one JSON file (never your password or key secrets).
      </p>
      <p>
        <a id="delete-account" href="${DELETE_PAGE}">Delete my account</a>: erases your profile and ends your
        keys; you choose whether your posts and comments stay, anonymised.
      </p>`,
  });
}

function profileForm({ session, values, problem }: SettingsView): Html {
  return html`<form id="profile-form" method="post" action="${SETTINGS_PAGE}" novalidate>
    ${csrfInput(session.csrfToken)}
    ${inputField({
      problem,
      name: 'display_name',
      label: 'Display name',
      value: values.display_name,
      required: true,
      hint: 'Up to 50 characters.',
      autocomplete: 'nickname',
    })}
    ${textareaField({ problem, name: 'bio', label: 'Bio', value: values.bio, hint: 'Up to 500 characters.' })}
    ${inputField({
      problem,
      name: 'avatar',
      label: 'Avatar URL',
      type: 'url',
      value: values.avatar,
      hint: 'An http(s) image address; leave empty for the default picture.',
      autocomplete: 'photo',
    })}
    <button type="submit">Save profile</button>
  </form>`;
}

async function currentValues(deps: TxDeps, req: Request, session: Session) {
  const base = publicBase(req);
  const [me, suspension] = await Promise.all([
    readMe(deps.sql, session.userId, base),
    accountSuspension(deps.sql, session.userId),
  ]);
  // The default picture is what an unset avatar reads as; the form shows it as empty again.
  const avatar = me.avatar === defaultAvatarUrl(base, me.id) ? '' : me.avatar;
  return {
    values: { display_name: me.display_name, bio: me.bio, avatar },
    avatarUrl: me.avatar,
    suspension,
  };
}

export function settingsPage(router: Router, deps: TxDeps): void {
  resource(router, '/settings', {
    get: async (req: Request, res: Response) => {
      const session = await sessionOrLogin(deps.sql, req, res, SETTINGS_PAGE);
      if (!session) return;
      const current = await currentValues(deps, req, session);
      showForm(res, 200, { session, ...current, saved: req.query.saved === '1' });
    },
    post: async (req: Request, res: Response) => {
      const session = await sessionOrLogin(deps.sql, req, res, SETTINGS_PAGE);
      if (!session) return;
      assertSessionCsrf(req, session);
      const values: ProfileValues = {
        display_name: formValue(req.body, 'display_name'),
        bio: formValue(req.body, 'bio'),
        avatar: formValue(req.body, 'avatar'),
      };
      try {
        const body = parseWith(updateMeBody, { ...values, avatar: values.avatar.trim() || null });
        await updateMe(deps, sessionActor(session), body, publicBase(req));
      } catch (err) {
        const problem = toProblem(err, res);
        if (!problem) throw err;
        const { avatarUrl, suspension } = await currentValues(deps, req, session);
        return showForm(res, problem.status, { session, values, avatarUrl, suspension, problem });
      }
      // Post/redirect/get: a reload shows the saved profile instead of sending the form again.
      res.redirect(303, `${SETTINGS_PAGE}?saved=1`);
    },
  });
}
