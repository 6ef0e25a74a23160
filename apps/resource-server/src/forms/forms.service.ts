import { Injectable } from '@nestjs/common';
import type { AuthPrincipal } from '@platform/bearer-auth';
import type { z } from 'zod';
import { notFound } from '../common/errors';
import { iso } from '../common/fields';
import { byId, idPage, type Page, toPage } from '../common/pagination';
import type { FormSubmission } from '../generated/prisma/client';
import { ViewerService } from '../tenancy/viewer.service';
import type { FormDto, FormField, FormSubmissionDto, ListFormsQueryDto, ListSubmissionsQueryDto } from './forms.dto';
import { type FormRow, FormsRepository } from './forms.repository';

export function toFormView(form: FormRow): FormDto {
  return {
    id: form.id,
    title: form.title,
    description: form.description,
    // Written only by the seed and the (future) form builder, always in this shape.
    fields: form.fields as z.infer<typeof FormField>[],
    submission_count: form._count.submissions,
    created_at: iso(form.createdAt),
    updated_at: iso(form.updatedAt),
  };
}

export function toSubmissionView(submission: FormSubmission): FormSubmissionDto {
  return {
    id: submission.id,
    form_id: submission.formId,
    answers: submission.answers as FormSubmissionDto['answers'],
    submitter_email: submission.submitterEmail,
    submitted_at: iso(submission.submittedAt),
  };
}

/** Forms and what people submitted: read only, private to the school. */
@Injectable()
export class FormsService {
  constructor(
    private readonly viewers: ViewerService,
    private readonly forms: FormsRepository,
  ) {}

  async list(principal: AuthPrincipal, query: ListFormsQueryDto): Promise<Page<FormDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    const page = idPage(query);
    return toPage(await this.forms.findFormsPage(schoolId, page), page.take, byId, toFormView);
  }

  async get(principal: AuthPrincipal, id: string): Promise<FormDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const form = await this.forms.findForm(schoolId, id);
    if (!form) throw notFound('form');
    return toFormView(form);
  }

  async listSubmissions(principal: AuthPrincipal, formId: string, query: ListSubmissionsQueryDto): Promise<Page<FormSubmissionDto>> {
    const { schoolId } = await this.viewers.staff(principal);
    if (!(await this.forms.findForm(schoolId, formId))) throw notFound('form');
    const page = idPage(query);
    return toPage(await this.forms.findSubmissionsPage(schoolId, formId, page), page.take, byId, toSubmissionView);
  }

  async getSubmission(principal: AuthPrincipal, formId: string, id: string): Promise<FormSubmissionDto> {
    const { schoolId } = await this.viewers.staff(principal);
    const submission = await this.forms.findSubmission(schoolId, formId, id);
    if (!submission) throw notFound('submission');
    return toSubmissionView(submission);
  }
}
